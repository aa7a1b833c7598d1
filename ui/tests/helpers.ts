import { tick } from 'svelte';
import * as backend from '../src/lib/backend';
import type { MockStore } from '../src/lib/mockBackend';

/** The in-memory store behind the mocked backend module (see vi.mock in each test file). */
export const mock = (): MockStore => (backend as unknown as { mockStore: MockStore }).mockStore;

export async function describe_(topic: string) {
  const r = await backend.describeTopic(topic);
  if (r.status !== 'ok') throw new Error(r.error.message);
  return r.data;
}

/** Let promises, timers of 0 ms and Svelte updates run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setTimeout(r, 0));
    await tick();
  }
}

export async function until(cond: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
    await tick();
  }
}

export const rows = (root: ParentNode = document) => [...root.querySelectorAll<HTMLElement>('[data-testid=message-row]')];
