// The one door to the backend. Components import from here only: never from
// bindings.ts or @tauri-apps/api. Tests replace this module with vi.mock; at run
// time `?mock` in the URL swaps in the in-memory store of mockBackend.ts.

import { commands, events } from './bindings';
import type {
  DeletedTopic,
  DemoMember,
  ErrorDto,
  GroupDetail,
  NewTopic,
  Page,
  ProducePayload,
  Produced,
  RawLine,
  ResetPlanDto,
  ResetRequest,
  SearchEvent,
  SearchQuery,
  StoreChanged,
  StoreInfo,
  TopicDetail,
  TopicSummary,
} from './bindings';
import { Channel } from '@tauri-apps/api/core';
import { getCurrentWebview } from '@tauri-apps/api/webview';
import { createMockBackend, mockOptionsFromUrl } from './mockBackend';

// Every type the backend speaks in, for components (they import nothing from bindings.ts).
export type * from './bindings';

export type Result<T> = { status: 'ok'; data: T } | { status: 'error'; error: ErrorDto };

/** A folder dragged over or dropped on the window. */
export type DragDrop = { type: 'enter' | 'over' | 'drop' | 'leave'; paths: string[] };

export type Unlisten = () => void;

/** Everything the UI asks of the backend. */
export interface Backend {
  /** `tauri`, `mock`, or `none` (a plain browser without `?mock`). */
  kind: 'tauri' | 'mock' | 'none';
  openStore(path: string): Promise<Result<StoreInfo>>;
  pickFolder(): Promise<Result<string | null>>;
  recentStores(): Promise<Result<string[]>>;
  openDemoStore(): Promise<Result<StoreInfo>>;
  storeInfo(): Promise<Result<StoreInfo>>;
  /** Close the open store (its watcher and demo members stop). */
  closeStore(): Promise<Result<null>>;
  /** The raw line of a message, with its file and 1-based line number (null: not found). */
  rawLine(topic: string, partition: number, offset: string): Promise<Result<RawLine | null>>;
  describeTopic(topic: string): Promise<Result<TopicDetail>>;
  readPage(topic: string, partition: number, from: string, limit: number): Promise<Result<Page>>;
  offsetAtTime(topic: string, partition: number, unixSeconds: number): Promise<Result<string | null>>;
  /** Start a search: `onEvent` gets hits, progress, then done or failed. Resolves to the id for cancelSearch. */
  search(topic: string, query: SearchQuery, onEvent: (e: SearchEvent) => void): Promise<Result<number>>;
  cancelSearch(id: number): Promise<Result<null>>;
  produce(topic: string, key: string, payload: ProducePayload): Promise<Result<Produced>>;
  createTopic(topic: NewTopic): Promise<Result<TopicSummary>>;
  /** The consumer groups that read a topic: deleting it deletes them too. */
  topicGroups(topic: string): Promise<Result<string[]>>;
  /** Delete a topic and the groups that read it; resolves to what went. */
  deleteTopic(topic: string, confirmName: string): Promise<Result<DeletedTopic>>;
  describeGroup(group: string): Promise<Result<GroupDetail>>;
  /** Reset a group's committed offsets; with `dry_run` only the before/after table. */
  resetGroup(group: string, request: ResetRequest): Promise<Result<ResetPlanDto>>;
  /** Open a round from outside the group: live members re-split the partitions. */
  triggerRound(group: string, windowMs: number): Promise<Result<null>>;
  /** Start a member inside the app; resolves to its handle. */
  demoStartMember(topic: string, group: string, windowMs: number, rate: number): Promise<Result<string>>;
  /** Stop a demo member gracefully (commit and leave) or kill it (no commit, no goodbye). */
  demoStopMember(handle: string, kill: boolean): Promise<Result<null>>;
  demoMembers(): Promise<Result<DemoMember[]>>;
  /** Store changes pushed by the file watcher. */
  onStoreChanged(cb: (c: StoreChanged) => void): Promise<Unlisten>;
  /** Folders dragged onto the window. */
  onDragDrop(cb: (d: DragDrop) => void): Promise<Unlisten>;
}

/** Thrown errors (IPC failures, a missing backend) become ordinary error results. */
async function guard<T>(p: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    const r = await p();
    // Tauri refuses a call it cannot run (an argument that is not of its type, say)
    // with a bare string, not an ErrorDto.
    if (r.status === 'error' && (typeof r.error !== 'object' || r.error === null)) {
      return { status: 'error', error: { code: 'ipc', message: `the backend refused the call: ${String(r.error)}` } };
    }
    return r;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { status: 'error', error: { code: 'ipc', message: `the backend did not answer: ${message}` } };
  }
}

function tauriBackend(): Backend {
  return {
    kind: 'tauri',
    openStore: (path) => guard(() => commands.openStore(path)),
    pickFolder: () => guard(() => commands.pickFolder()),
    recentStores: () => guard(() => commands.recentStores()),
    openDemoStore: () => guard(() => commands.openDemoStore()),
    storeInfo: () => guard(() => commands.storeInfo()),
    closeStore: () => guard(() => commands.closeStore()),
    rawLine: (topic, partition, offset) => guard(() => commands.rawLine(topic, partition, offset)),
    describeTopic: (topic) => guard(() => commands.describeTopic(topic)),
    readPage: (topic, partition, from, limit) => guard(() => commands.readPage(topic, partition, from, limit)),
    offsetAtTime: (topic, partition, unix) => guard(() => commands.offsetAtTime(topic, partition, unix)),
    search: (topic, query, onEvent) =>
      guard(() => {
        const channel = new Channel<SearchEvent>();
        channel.onmessage = onEvent;
        return commands.search(topic, query, channel);
      }),
    cancelSearch: (id) => guard(() => commands.cancelSearch(id)),
    produce: (topic, key, payload) => guard(() => commands.produce(topic, key, payload)),
    createTopic: (topic) => guard(() => commands.createTopic(topic)),
    topicGroups: (topic) => guard(() => commands.topicGroups(topic)),
    deleteTopic: (topic, confirm) => guard(() => commands.deleteTopic(topic, confirm)),
    describeGroup: (group) => guard(() => commands.describeGroup(group, null)),
    resetGroup: (group, request) => guard(() => commands.resetGroup(group, request)),
    triggerRound: (group, windowMs) => guard(() => commands.triggerRound(group, windowMs)),
    demoStartMember: (topic, group, windowMs, rate) => guard(() => commands.demoStartMember(topic, group, windowMs, rate)),
    demoStopMember: (handle, kill) => guard(() => commands.demoStopMember(handle, kill)),
    demoMembers: () => guard(() => commands.demoMembers()),
    onStoreChanged: async (cb) => events.storeChanged.listen((e) => cb(e.payload)),
    onDragDrop: async (cb) =>
      getCurrentWebview().onDragDropEvent((e) => {
        const p = e.payload;
        cb({ type: p.type, paths: 'paths' in p ? p.paths : [] });
      }),
  };
}

function missingBackend(): Backend {
  const no = async <T>(): Promise<Result<T>> => ({
    status: 'error',
    error: {
      code: 'no_backend',
      message: 'the TwainMQ backend is not reachable: run TwainMQ Desktop, or add ?mock to the address for the built-in demo data',
    },
  });
  return {
    kind: 'none',
    openStore: no,
    pickFolder: no,
    recentStores: async () => ({ status: 'ok', data: [] }),
    openDemoStore: no,
    storeInfo: no,
    closeStore: no,
    rawLine: no,
    describeTopic: no,
    readPage: no,
    offsetAtTime: no,
    search: no,
    cancelSearch: no,
    produce: no,
    createTopic: no,
    topicGroups: no,
    deleteTopic: no,
    describeGroup: no,
    resetGroup: no,
    triggerRound: no,
    demoStartMember: no,
    demoStopMember: no,
    demoMembers: no,
    onStoreChanged: async () => () => {},
    onDragDrop: async () => () => {},
  };
}

function choose(): Backend {
  const loc = typeof location === 'undefined' ? null : location;
  const params = new URLSearchParams(loc?.search ?? '');
  if (params.has('mock')) return createMockBackend(mockOptionsFromUrl(params));
  const w = typeof window === 'undefined' ? undefined : (window as unknown as Record<string, unknown>);
  if (w && '__TAURI_INTERNALS__' in w) return tauriBackend();
  return missingBackend();
}

const impl: Backend = choose();

export const backendKind = impl.kind;
// Every method is a closure over its backend (none uses `this`), so each can be taken out on its own.
export const {
  openStore,
  pickFolder,
  recentStores,
  openDemoStore,
  storeInfo,
  closeStore,
  rawLine,
  describeTopic,
  readPage,
  offsetAtTime,
  search,
  cancelSearch,
  produce,
  createTopic,
  topicGroups,
  deleteTopic,
  describeGroup,
  resetGroup,
  triggerRound,
  demoStartMember,
  demoStopMember,
  demoMembers,
  onStoreChanged,
  onDragDrop,
} = impl;
