// A reload that coalesces: calls made while one runs make one more run after it,
// and runs are at least `minMs` apart however often they are asked for. A screen's
// loader is stopped when the screen goes: nothing it had queued runs after that.

export type Loader = {
  (): Promise<void>;
  /** No run after this one: a queued or waiting run is dropped, later calls do nothing. */
  stop(): void;
};

export function coalesced(run: () => Promise<void>, minMs: number): Loader {
  let running: Promise<void> | null = null;
  let again = false;
  let last = 0;
  let stopped = false;
  /** Ends the wait between runs early when stopped. */
  let wake: (() => void) | null = null;
  const request = function request(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const wait = last + minMs - Date.now();
          if (wait > 0) {
            await new Promise<void>((r) => {
              const t = setTimeout(r, wait);
              wake = () => {
                clearTimeout(t);
                r();
              };
            });
            wake = null;
          }
          if (stopped) return;
          last = Date.now();
          await run();
        } while (again && !stopped);
      } finally {
        running = null;
      }
    })();
    return running;
  } as Loader;
  request.stop = () => {
    stopped = true;
    wake?.();
  };
  return request;
}
