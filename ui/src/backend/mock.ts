// The UI's test backend: it replays answers the real backend gave, recorded
// by `cargo xtask ui-fixture` (xtask/src/record) into
// ui/fixtures/recorded-store.json (a copy of the 0.2.3 fixture store plus
// topics and groups made with a pinned clock). It knows
// no engine rule: no key or name validation, no partitioner, no encoding, no
// assignment. What it does itself is small and says so:
//  - pages are cut from a partition's recorded rows (the cut is checked
//    against pages the engine cut, in tests/mockBackend.test.ts);
//  - a time lookup answers with the recorded lookup of the next sampled time;
//  - rows a test appends (appendNow) are added at a partition's end, and
//    counted in the topic's summary (they are in no file and add no bytes);
//  - searches stream the recorded hits in steps, with progress in between;
//  - exports, imports and copies stream the recorded end of the recorded
//    request (after a few progress events of their own); an import changes
//    no topic here (the mock has no partitioner); retention previews and
//    purge previews answer the recorded requests, and saving a setting keeps it;
//  - writes (produce, create, delete, reset, rounds, demo members) answer
//    only the requests that were recorded, and then show the state recorded
//    after them; any other write answers code "preview".
// A group's `now` runs on from the recorded clock. Tests reach the store as
// `mockStore` of the mocked module (`vi.mock('../backend', ...)`); its parts are in mock/:
// a browser uses it with `?mock` in the dev server or the preview build.
// the recording (recording.ts), its topics' reads (topics.ts), the balancing
// demo (demos.ts) and the answer to each command (commands.ts).

import type { Backend } from './api';
import { mockCommands } from './mock/commands';
import { MockState } from './mock/state';
import type { MockOptions } from './mock/recording';

export { mockOptionsFromUrl, recording, type MockOptions, type RecordedTopic, type RecordedTimeline, type Recording, type TransferRecording } from './mock/recording';

/** In this module only, so scripts/check-bundle.sh can tell that the test backend was bundled. */
export const TEST_BACKEND_MARKER = '__TWAINMQ_TEST_BACKEND__';

export class MockStore extends MockState {
  /** Marks the test backend in a bundle (see TEST_BACKEND_MARKER). */
  readonly marker = TEST_BACKEND_MARKER;

  /** The backend's commands and events, answered by this store. */
  backend(): Backend {
    return mockCommands(this);
  }
}

/** A mock backend (and its store, for tests to poke). */
export function createMockBackend(opts: MockOptions = {}, store = new MockStore(opts)): Backend & { store: MockStore } {
  return Object.assign(store.backend(), { store });
}

/**
 * The exports of the backend's door (index.ts), served by one shared MockStore: tests write
 * `vi.mock('../backend', async () => (await import('../backend/mock')).mockModule())`.
 */
export function mockModule(opts: MockOptions = {}) {
  const store = new MockStore({ open: true, ...opts });
  const b = store.backend();
  return {
    mockStore: store,
    backendKind: 'mock' as const,
    backend: b,
  };
}
