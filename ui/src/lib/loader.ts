// A reload that coalesces: calls made while one runs make one more run after it,
// and runs are at least `minMs` apart however often they are asked for.

export function coalesced(run: () => Promise<void>, minMs: number): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  let last = 0;
  return function request(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const wait = last + minMs - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          last = Date.now();
          await run();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}
