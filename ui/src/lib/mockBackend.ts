// The UI's test backend: it replays answers the real backend gave, recorded
// by src-tauri/src/record.rs into recorded/store.json (a copy of the 0.2.3
// fixture store plus topics and groups made with a pinned clock). It knows
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
// `mockStore` of the mocked module (`vi.mock('../src/lib/backend', ...)`);
// a browser uses it with `?mock` in the dev server or the preview build.

import type { Backend, DragDrop, Result, Unlisten } from './api';
import type {
  About,
  DeletedGroup,
  DeletedTopic,
  DemoMember,
  GroupDeletePreview,
  HistorySpan,
  LagAlertThresholds,
  LagCheckDto,
  LagHistoryDto,
  OffsetsFile,
  ErrorDto,
  FilterCheck,
  Count,
  SearchId,
  SearchRows,
  TimelineAnchor,
  TimelinePageDto,
  GroupDetail,
  GroupSummary,
  Handle,
  KeyText,
  LaunchError,
  MenuAction,
  MenuChecks,
  MessageRow,
  NewTopic,
  Offset,
  Page,
  ProducePayload,
  Produced,
  RawLine,
  ResetPlanDto,
  ResetRequest,
  Row,
  SearchEvent,
  SearchQuery,
  StoreChanged,
  StoreInfo,
  TopicDetail,
  TopicSummary,
  CopyRequest,
  ExportRequest,
  ImportRequest,
  RetentionApplied,
  RetentionDto,
  RetentionPlanDto,
  TransferEvent,
  TransferId,
} from './bindings';
import { MAX_PAGE } from './bindings';
import recordedText from './recorded/store.json?raw';

/** In this module only, so scripts/check-bundle.sh can tell that the test backend was bundled. */
export const TEST_BACKEND_MARKER = '__TWAINMQ_TEST_BACKEND__';
const RECORDED_MARKER = '__TWAINMQ_RECORDED_DATA__';

type RecordedPartition = { partition: number; rows: Row[]; next: Offset; end: Offset };

/** All that was recorded of one topic. */
export type RecordedTopic = {
  detail: Result<TopicDetail>;
  /** Every row of each partition, from its start. */
  partitions: RecordedPartition[];
  /** `"partition:offset"` → the raw line (every row; firehose: a sample). */
  raw_lines: Record<string, RawLine | null>;
  /** [partition, unix seconds, the engine's offsetAtTime]: at message times, and past the last. */
  times: [number, number, Offset | null][];
  groups: Result<string[]>;
  /** JSON field paths of the newest messages (topic_fields). */
  fields?: Result<string[]>;
  /** The topic as one timeline (topics of more than one partition). */
  timeline?: RecordedTimeline | null;
  summary?: TopicSummary;
};

/** A topic's whole timeline as the engine merged it (see record_timeline). */
export type RecordedTimeline = {
  partitions: number[];
  first: Offset[];
  /** [partition, offset] of every message, in timeline order. */
  order: [number, Offset][];
  /** [unix seconds, the cut (begin) of the timeline at that time]. */
  times: [number, Offset[]][];
  /** Pages the engine cut, to check the mock's cuts against. */
  checks: { dir: 'before' | 'after'; anchor?: TimelineAnchor | null; before?: Offset[]; limit: number; answer: Result<TimelinePageDto> }[];
};

type DemoStep = { do: 'start' | 'kill' | 'stop'; handle: Handle; member_id?: number; detail: GroupDetail; then?: GroupDetail };
type DemoScene = { topic: string; group: string; window_ms: number; steps: DemoStep[] };

/** The recording's shape (see src-tauri/src/record.rs). */
export type Recording = {
  marker: string;
  about: string;
  /** The about command's answer. */
  versions: About;
  now: number;
  root: string;
  info: Result<StoreInfo>;
  topics: Record<string, RecordedTopic>;
  groups: Record<string, Result<GroupDetail>>;
  page_checks: { topic: string; partition: number; from: Offset; limit: number; answer: Result<Page> }[];
  searches: { topic: string; query: SearchQuery; events: SearchEvent[]; rows: MessageRow[] }[];
  filter_checks: { expr: string; answer: FilterCheck }[];
  gone: Record<string, Result<TopicDetail>>;
  remade: Record<string, RecordedTopic & { summary: TopicSummary }>;
  no_store: Result<null>;
  produce: { topic: string; key: KeyText; payload: ProducePayload; answer: Result<Produced>; row: Row | null }[];
  create_topic: { request: NewTopic; existed: boolean; answer: Result<TopicSummary>; detail: Result<TopicDetail> | null; groups: Result<string[]> | null }[];
  delete_topic: { topic: string; confirm: string; answer: Result<DeletedTopic> }[];
  resets: { group: string; request: ResetRequest; answer: Result<ResetPlanDto>; after?: GroupDetail }[];
  rounds: { group: string; window_ms: number; at: number; open: GroupDetail; ended: GroupDetail }[];
  demos: Record<string, DemoScene>;
  other_stores: Record<string, Result<StoreInfo>>;
  open_errors: Record<string, Result<null>>;
  /** Issue 15: lag histories, lag checks, delete previews and deletions of groups. */
  lag_histories?: { group: string; span: HistorySpan; answer: Result<LagHistoryDto> }[];
  lag_checks?: { group: string; thresholds: LagAlertThresholds; answer: Result<LagCheckDto> }[];
  delete_previews?: Record<string, Result<GroupDeletePreview>>;
  delete_group?: { group: string; confirm: string; answer: Result<DeletedGroup> }[];
  transfer: TransferRecording;
};

/** See src-tauri/src/record/transfer.rs. */
export type TransferRecording = {
  exports: { request: ExportRequest; events: TransferEvent[] }[];
  imports: { request: ImportRequest; events: TransferEvent[] }[];
  csv_columns: { path: string; answer: Result<string[]> }[];
  retention: Record<string, Result<RetentionDto | null>>;
  previews: { topic: string; retention: RetentionDto | null; force: boolean; answer: Result<RetentionPlanDto> }[];
  purges: { topic: string; before: number | null; force: boolean; answer: Result<RetentionPlanDto> }[];
};

export const recording: Recording = JSON.parse(recordedText);
if (recording.marker !== RECORDED_MARKER) throw new Error('recorded/store.json is not a recording of the backend');

export type MockOptions = {
  /** Start with the store open. */
  open?: boolean;
  /** Milliseconds each command takes. */
  latency?: number;
  /** Hits a search streams per step, and the pause between steps (ms). */
  searchChunk?: number;
  searchDelay?: number;
  /** Append a chat message every this many ms (0: never). */
  live?: number;
  /** Whether the (pretend) file watcher is on; false: changes appear on refresh only. */
  watching?: boolean;
};

export function mockOptionsFromUrl(params: URLSearchParams): MockOptions {
  const num = (k: string) => (params.has(k) ? Number(params.get(k)) : undefined);
  const mock = params.get('mock') ?? '';
  return {
    open: mock === 'open' || params.has('open'),
    latency: num('latency') ?? 15,
    searchChunk: num('searchChunk') ?? 100,
    searchDelay: num('searchDelay') ?? 30,
    live: num('live') ?? 0,
    watching: !params.has('nowatch'),
  };
}

const ok = <T>(data: T): Result<T> => ({ status: 'ok', data });
const failed = <T>(error: ErrorDto): Result<T> => ({ status: 'error', error });
/** What the preview says of a request it has no recording of. */
const preview = <T>(what: string): Result<T> => failed({ code: 'preview', message: `the preview replays recorded answers only, and has none for ${what}` });

/** JSON with keys in order, to compare requests with recorded ones. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );
}
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
const copy = <T>(v: T): T => structuredClone(v);
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

type TopicState = {
  name: string;
  summary: TopicSummary;
  detail: Result<TopicDetail>;
  partitions: RecordedPartition[];
  /** Rows added by tests or the live demo, per partition index. */
  appended: Row[][];
  raw: Record<string, RawLine | null>;
  times: [number, number, Offset | null][];
  groups: Result<string[]>;
  fields: Result<string[]>;
  timeline: RecordedTimeline | null;
  /** [partition, offset] of rows appended, in the order they came (the timeline's newest). */
  appendedOrder: [number, Offset][];
};

type GroupState = { detail: GroupDetail; /** ms (by the mock's clock) when this state began. */ since: number };

type DemoState = DemoMember & { timers: ReturnType<typeof setInterval>[] };
type DemoRun = { scene: DemoScene; next: number };

function topicState(name: string, rec: RecordedTopic, summary: TopicSummary): TopicState {
  const detail = copy(rec.detail);
  return {
    name,
    summary: copy(summary),
    detail,
    partitions: rec.partitions,
    appended: detail.status === 'ok' ? detail.data.partitions.map(() => []) : [],
    raw: rec.raw_lines,
    times: rec.times,
    groups: rec.groups,
    fields: rec.fields ?? { status: 'ok', data: [] },
    timeline: rec.timeline ?? null,
    appendedOrder: [],
  };
}

export class MockStore {
  /** Marks the test backend in a bundle (see TEST_BACKEND_MARKER). */
  readonly marker = TEST_BACKEND_MARKER;
  readonly recording = recording;
  open: boolean;
  root = recording.root;
  latency: number;
  /** Calls named here answer only once the promise settles (their answer is taken at once): an answer in flight. */
  held = new Map<string, Promise<void>>();
  searchChunk: number;
  searchDelay: number;
  topics = new Map<string, TopicState>();
  groups = new Map<string, GroupState>();
  /** Whether the pretend watcher is on: when off, no storeChanged events are sent. */
  watching: boolean;
  /** Milliseconds now (tests may pin it). A group's `now` runs on from the recorded clock by it. */
  clock: () => number = () => Date.now();
  recent: string[] = [...new Set([recording.root, ...Object.keys(recording.other_stores), ...Object.keys(recording.open_errors)])];
  /** Why the store named on the command line did not open (tests set it; given once, as the app does). */
  launch: LaunchError | null = null;
  /** Folder the fake pickFolder returns (null: the person cancelled). */
  pickResult: string | null = recording.root;
  /** What the save and open dialogs answer (null: cancelled). */
  pickFileResult: string | null = null;
  /** Retention settings saved in this session, by topic. */
  retentionSaved = new Map<string, RetentionDto | null>();
  private transfers = new Map<number, { cancelled: boolean }>();
  private nextTransfer = 0;
  private retentionListeners = new Set<(r: RetentionApplied) => void>();
  /** What the window told the native menu (theme, View marks), in order: tests read it. */
  viewStates: { dark: boolean; checks: MenuChecks }[] = [];
  /** Files the pretend exports wrote (an export to one of them unconfirmed is refused). */
  exportedFiles = new Set<string>();
  /** Plans a test says the app's retention removed, until taken. */
  retentionNotices: RetentionPlanDto[] = [];

  /** Stream a recorded transfer: three progress events, then its recorded end (or a cancelled end). */
  private streamTransfer(events: TransferEvent[], onEvent: (e: TransferEvent) => void): Result<TransferId> {
    const id = ++this.nextTransfer;
    const state = { cancelled: false };
    this.transfers.set(id, state);
    const end = events[events.length - 1];
    const total = end?.event === 'done' ? BigInt(end.done.messages) : 0n;
    const steps = [1n, 2n, 3n];
    let i = 0;
    const tick = () => {
      if (state.cancelled) {
        const done = end?.event === 'done' ? end.done : { messages: '0', cancelled: true, target: '', import: null };
        onEvent({ event: 'done', done: { ...copy(done), cancelled: true, messages: ((total * BigInt(i)) / 4n).toString() } });
        return;
      }
      if (i < steps.length) {
        onEvent({ event: 'progress', done: ((total * steps[i]) / 4n).toString(), total: total.toString() });
        i++;
        this.later(this.searchDelay, tick);
        return;
      }
      for (const e of events) onEvent(copy(e));
      this.transfers.delete(id);
    };
    this.later(5, tick);
    return ok(id);
  }

  /** Tell listeners what the app's retention removed (tests call it). */
  emitRetentionApplied(r: RetentionApplied): void {
    this.retentionNotices.push(...copy(r.plans));
    for (const l of this.retentionListeners) l(r);
  }
  /** Every call made, for tests: [name, ...args]. */
  calls: unknown[][] = [];
  /** What the fake save dialog picks for an export (null: cancelled); the export "writes" nothing. */
  exportPath: string | null = '/home/you/offsets.json';
  /** What the fake open dialog gives for an import (null: cancelled). */
  offsetsFile: OffsetsFile | null = null;
  /** Lag checks a test sets per group (taking the place of the recorded ones). */
  lagChecks = new Map<string, Result<LagCheckDto>>();
  /** Every desktop notification sent, for tests. */
  notifications: { title: string; body: string }[] = [];
  demos = new Map<Handle, DemoState>();
  private demoRuns = new Map<string, DemoRun>();
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private changeListeners = new Set<(c: StoreChanged) => void>();
  private dropListeners = new Set<(d: DragDrop) => void>();
  private menuListeners = new Set<(a: MenuAction) => void>();
  private searches = new Map<number, { cancelled: boolean; rows: MessageRow[]; done: boolean; settled: number }>();
  private nextSearch = 0;
  /** Folders made stores by createStore: they open from then on. */
  private created = new Set<string>();
  private liveTimer: ReturnType<typeof setInterval> | null = null;

  constructor(opts: MockOptions = {}) {
    this.open = opts.open ?? false;
    this.latency = opts.latency ?? 0;
    this.searchChunk = opts.searchChunk ?? 100;
    this.searchDelay = opts.searchDelay ?? 0;
    this.watching = opts.watching ?? true;
    this.seed();
    if (opts.live && opts.live > 0 && typeof setInterval !== 'undefined') {
      let n = 0;
      this.liveTimer = setInterval(() => {
        if (!this.open) return;
        n++;
        if (this.topics.has('chat')) this.appendNow('chat', ['ada', 'grace', 'linus'][n % 3], { text: `live message ${n} at ${new Date().toISOString()}` }, n % 2);
        if (this.topics.has('firehose')) this.appendNow('firehose', String(n), { text: `tail event ${n} level=info` }, 0);
      }, opts.live);
    }
  }

  /** The store as recorded, nothing appended or changed (tests call this between cases). */
  seed(): void {
    this.retentionSaved?.clear();
    this.exportedFiles?.clear();
    this.stopTimers();
    this.root = recording.root;
    this.topics.clear();
    this.groups.clear();
    const info = recording.info.status === 'ok' ? recording.info.data : null;
    for (const s of info?.topics ?? []) {
      const rec = recording.topics[s.name];
      if (rec) this.topics.set(s.name, topicState(s.name, rec, s));
    }
    for (const [name, d] of Object.entries(recording.groups)) {
      if (d.status === 'ok') this.groups.set(name, { detail: copy(d.data), since: this.clock() });
    }
    this.demos.clear();
    this.demoRuns.clear();
  }

  stop(): void {
    if (this.liveTimer) clearInterval(this.liveTimer);
    this.stopTimers();
  }

  /** Drop every change and drag-and-drop listener (tests: each render's app.start() adds its own). */
  forgetListeners(): void {
    this.changeListeners.clear();
    this.dropListeners.clear();
    this.menuListeners.clear();
  }

  private stopTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const d of this.demos.values()) for (const t of d.timers) clearInterval(t);
  }

  private later(ms: number, f: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      f();
    }, ms);
    this.timers.add(t);
  }

  // ---- what the store holds now ----------------------------------------------

  summary(t: TopicState): TopicSummary {
    if (t.summary.error !== null) return copy(t.summary);
    const added = t.appended.reduce((n, rows) => n + rows.length, 0);
    let last = t.summary.last_message;
    for (const rows of t.appended) {
      const r = rows[rows.length - 1];
      if (r?.row === 'message' && r.timestamp !== null && (last === null || r.timestamp > last)) last = r.timestamp;
    }
    // Appending writes the files now, and a message stamped by its producer.
    const fileNow = added > 0 ? Date.now() / 1000 : t.summary.last_write;
    return { ...copy(t.summary), messages: (BigInt(t.summary.messages) + BigInt(added)).toString(), last_write: fileNow, last_message: last };
  }

  /** A partition's end: recorded, plus the rows appended to it. */
  end(t: TopicState, index: number): bigint {
    return BigInt(t.partitions[index]?.end ?? '0') + BigInt(t.appended[index]?.length ?? 0);
  }

  detail(t: TopicState): Result<TopicDetail> {
    if (t.detail.status === 'error') return copy(t.detail);
    const d = copy(t.detail.data);
    return ok({ ...d, summary: this.summary(t), partitions: d.partitions.map((p, i) => ({ ...p, end: this.end(t, i).toString() })) });
  }

  groupSummary(name: string, g: GroupState): GroupSummary {
    const d = g.detail;
    return { name, topic: d.topic, members: d.members.length, live_members: d.live_members, state: d.state, lag: d.partitions.reduce((s, p) => s + BigInt(p.lag), 0n).toString() };
  }

  info(): StoreInfo {
    return {
      root: this.root,
      topics: [...this.topics.values()].map((t) => this.summary(t)).sort(byName),
      groups: [...this.groups.entries()].map(([n, g]) => this.groupSummary(n, g)).sort(byName),
      watching: this.watching,
    };
  }

  describeGroupNow(name: string): GroupDetail | null {
    const g = this.groups.get(name);
    if (!g) return null;
    return { ...copy(g.detail), now: (g.detail.now ?? recording.now) + (this.clock() - g.since) / 1000 };
  }

  private setGroup(name: string, detail: GroupDetail): void {
    this.groups.set(name, { detail: copy(detail), since: this.clock() });
    this.emitChange({ topics: [], groups: [name], structure: false });
  }

  /** The topic, or the answer for a call on it when there is none to be had. */
  private topic(name: string): TopicState | ErrorDto {
    if (!this.open && recording.no_store.status === 'error') return recording.no_store.error;
    const t = this.topics.get(name);
    if (t) return t;
    const gone = recording.gone[name];
    if (gone?.status === 'error') return gone.error;
    return { code: 'preview', message: `the preview has no recording of a topic ${JSON.stringify(name)}` };
  }

  // ---- what tests and the live demo do ------------------------------------------

  /** Another process deletes a topic (its groups stay), and with `remake`, makes it again as recorded. */
  replaceExternally(name: string, remake = false): void {
    this.topics.delete(name);
    const again = recording.remade[name];
    if (remake) {
      if (!again) throw new Error(`no recording of ${name} made again`);
      this.topics.set(name, topicState(name, again, again.summary));
    }
    this.emitChange({ topics: [name], groups: [], structure: true });
  }

  /** Append a text message (or other fields) at the end of a partition, with the current time. */
  appendNow(topic: string, key: KeyText, fields: Partial<MessageRow>, partition: number): Produced {
    const t = this.topics.get(topic);
    if (!t) throw new Error(`no topic ${topic}`);
    const offset = this.end(t, partition).toString();
    const text = fields.text ?? null;
    const row: Row = {
      row: 'message',
      partition,
      offset,
      key,
      key_kind: t.summary.key_type.startsWith('char') ? 'str' : 'int',
      timestamp: this.clock() / 1000,
      kind: 'str',
      text,
      hex: null,
      class: null,
      type_id: null,
      fields_json: null,
      fields_pretty: null,
      size: text === null ? 0 : new TextEncoder().encode(text).length,
      ...fields,
    };
    this.appendRow(t, partition, row);
    return { partition, offset };
  }

  private appendRow(t: TopicState, partition: number, row: Row): void {
    (t.appended[partition] ??= []).push(row);
    t.appendedOrder.push([partition, row.offset]);
    this.emitChange({ topics: [t.name], groups: [], structure: false });
  }

  emitChange(c: StoreChanged): void {
    if (!this.watching) return;
    // Like the file watcher: a moment after the write.
    this.later(5, () => {
      for (const l of this.changeListeners) l(c);
    });
  }

  /** Whether anything listens for folders dropped on the window (the app, once started). */
  get listeningForDrops(): boolean {
    return this.dropListeners.size > 0;
  }

  /** Simulate dropping folders on the window (tests). */
  /** A menu bar item chosen (as the native menu sends it). */
  menu(a: MenuAction): void {
    for (const l of this.menuListeners) l(a);
  }

  get listeningForMenu(): boolean {
    return this.menuListeners.size > 0;
  }

  drop(paths: string[]): void {
    for (const l of this.dropListeners) {
      l({ type: 'enter', paths });
      l({ type: 'drop', paths });
    }
  }

  private async wait(): Promise<void> {
    if (this.latency > 0) await new Promise((r) => setTimeout(r, this.latency));
    else await Promise.resolve();
  }

  // ---- reads ------------------------------------------------------------------------

  readPage(name: string, partition: number, from: Offset, limit: number): Result<Page> {
    const t = this.topic(name);
    if ('code' in t) return failed(t);
    const d = this.detail(t);
    if (d.status === 'error') return d;
    const index = d.data.partitions.findIndex((p) => p.partition === partition);
    if (index < 0) return preview(`partition ${partition} of ${name}`);
    // As the engine reads: from the partition's start at the earliest, at most MAX_PAGE rows.
    const start = BigInt(d.data.partitions[index].start);
    const at = BigInt(from) < start ? start : BigInt(from);
    const n = Math.max(1, Math.min(MAX_PAGE, limit));
    const all = (t.partitions[index]?.rows ?? []).concat(t.appended[index] ?? []);
    const rows = copy(all.slice(Number(at - start), Number(at - start) + n));
    const next = rows.length > 0 ? (BigInt(rows[rows.length - 1].offset) + 1n).toString() : at.toString();
    return ok({ partition, rows, next, end: this.end(t, index).toString(), incarnation: d.data.incarnation });
  }

  rawLine(name: string, partition: number, offset: Offset): Result<RawLine | null> {
    const t = this.topic(name);
    if ('code' in t) return failed(t);
    const key = `${partition}:${offset}`;
    if (key in t.raw) return ok(copy(t.raw[key]));
    const index = t.partitions.findIndex((p) => p.partition === partition);
    if (index >= 0 && BigInt(offset) >= this.end(t, index)) return ok(null); // no line there, as the engine says
    return preview(`the raw line at ${name} ${key}`);
  }

  offsetAtTime(name: string, partition: number, unix: number): Result<Offset | null> {
    const t = this.topic(name);
    if ('code' in t) return failed(t);
    // The recorded lookup of the next sampled time (past the last message: none).
    const samples = t.times.filter(([p]) => p === partition).sort((a, b) => a[1] - b[1]);
    const next = samples.find(([, at]) => at >= unix) ?? samples[samples.length - 1];
    return next ? ok(next[2]) : preview(`a time lookup in ${name} P${partition}`);
  }

  /** Stream a recorded search: progress in steps (hits growing to the recorded count), then its end. */
  private async stream(name: string, events: SearchEvent[], state: { cancelled: boolean; done: boolean; settled: number }, send: (e: SearchEvent) => void): Promise<void> {
    const end = events.find((e) => e.event !== 'progress');
    const t = this.topics.get(name);
    const total = end?.event === 'done' ? BigInt(end.total) : BigInt(t ? this.summary(t).messages : '0');
    const hits = end?.event === 'done' ? BigInt(end.hits) : 0n;
    const steps = Math.max(1, Math.ceil(Number(hits) / Math.max(1, this.searchChunk)));
    for (let i = 0; i < steps; i++) {
      await new Promise((r) => setTimeout(r, this.searchDelay));
      const scanned = (total * BigInt(i + 1)) / BigInt(steps + 1);
      const found = (hits * BigInt(i + 1)) / BigInt(steps + 1);
      if (state.cancelled) {
        state.done = true;
        send({ event: 'done', scanned: scanned.toString(), total: total.toString(), hits: found.toString(), finish: 'cancelled' });
        return;
      }
      // The recording's hits settle in order as they are found (the engine's may settle later).
      state.settled = Number(found);
      send({ event: 'progress', scanned: scanned.toString(), total: total.toString(), hits: found.toString(), settled: found.toString() });
    }
    await new Promise((r) => setTimeout(r, this.searchDelay));
    state.done = true;
    if (end && !state.cancelled) send(copy(end));
    else if (state.cancelled) send({ event: 'done', scanned: total.toString(), total: total.toString(), hits: '0', finish: 'cancelled' });
  }

  // ---- the timeline, cut from the recorded order -------------------------------

  /** The timeline's order (recorded, then rows appended since), of some partitions. */
  private timelineOrder(t: TopicState, partitions: number[] | null): { parts: number[]; order: [number, bigint][]; first: bigint[]; ends: bigint[] } | null {
    const rec = t.timeline;
    const d = this.detail(t);
    if (d.status === 'error') return null;
    const all = rec ? rec.partitions : d.data.partitions.map((p) => p.partition);
    const parts = partitions ?? all;
    const keep = new Set(parts);
    const recorded: [number, Offset][] = rec ? rec.order : (d.data.partitions[0] ? (t.partitions[0]?.rows ?? []).map((r): [number, Offset] => [r.partition, r.offset]) : []);
    const order = recorded
      .concat(t.appendedOrder)
      .filter(([p]) => keep.has(p))
      .map(([p, o]): [number, bigint] => [p, BigInt(o)]);
    const index = (p: number) => d.data.partitions.findIndex((x) => x.partition === p);
    const first = parts.map((p) => BigInt(d.data.partitions[index(p)]?.start ?? '0'));
    const ends = parts.map((p) => this.end(t, index(p)));
    return { parts, order, first, ends };
  }

  private row(t: TopicState, partition: number, offset: bigint): MessageRow | null {
    const d = this.detail(t);
    if (d.status === 'error') return null;
    const i = d.data.partitions.findIndex((p) => p.partition === partition);
    const start = BigInt(d.data.partitions[i]?.start ?? '0');
    const all = (t.partitions[i]?.rows ?? []).concat(t.appended[i] ?? []);
    const r = all[Number(offset - start)];
    return r && r.row === 'message' ? (({ row: _r, ...m }) => m)(r) : null;
  }

  timelinePage(name: string, partitions: number[] | null, dir: 'before' | 'after', anchor: TimelineAnchor | Offset[] | null, limit: number): Result<TimelinePageDto> {
    const t = this.topic(name);
    if ('code' in t) return failed(t);
    const tl = this.timelineOrder(t, partitions);
    if (!tl) return preview(`the timeline of ${name}`);
    const { parts, order, first, ends } = tl;
    const n = Math.max(0, Math.min(MAX_PAGE, limit));
    // The cut with k messages before it, and the place of a cut in the order.
    const cutAt = (k: number): bigint[] =>
      parts.map((p, i) => {
        const next = order.slice(k).find(([q]) => q === p);
        return next ? next[1] : ends[i];
      });
    const indexOf = (cut: bigint[]): number => order.filter(([p, o]) => o < cut[parts.indexOf(p)]).length;
    let k: number;
    if (dir === 'before') k = anchor === null ? order.length : indexOf((anchor as Offset[]).map((o) => BigInt(o)));
    else {
      const a = anchor as TimelineAnchor;
      if (a.at === 'start') k = 0;
      else if (a.at === 'end') k = order.length;
      else if (a.at === 'at') k = indexOf(a.offsets.map((o) => BigInt(o)));
      else if (a.at === 'index') k = Math.min(order.length, Number(a.index));
      else {
        const rec = t.timeline;
        const times = [...(rec?.times ?? [])].sort((x, y) => x[0] - y[0]);
        const next = times.find(([at]) => at >= (a.unix ?? 0)) ?? times[times.length - 1];
        k = next ? indexOf(next[1].map((o) => BigInt(o))) : 0;
      }
    }
    const [lo, hi] = dir === 'before' ? [Math.max(0, k - n), k] : [k, Math.min(order.length, k + n)];
    const rows = order.slice(lo, hi).flatMap(([p, o]) => {
      const r = this.row(t, p, o);
      return r ? [copy(r)] : [];
    });
    const begin = cutAt(lo);
    const end = cutAt(hi);
    const sum = (a: bigint[], b: bigint[]) => a.reduce((acc, x, i) => acc + (x - b[i]), 0n);
    const d = this.detail(t);
    return ok({
      partitions: parts,
      rows,
      begin: begin.map(String),
      end: end.map(String),
      first: first.map(String),
      base: sum(begin, first).toString(),
      total: sum(ends, first).toString(),
      incarnation: d.status === 'ok' ? d.data.incarnation : null,
    });
  }

  // ---- the Backend interface ----------------------------------------------

  backend(): Backend {
    const call =
      <A extends unknown[], T>(name: string, f: (...a: A) => Result<T> | Promise<Result<T>>) =>
      async (...a: A): Promise<Result<T>> => {
        this.calls.push([name, ...a]);
        await this.wait();
        const answer = await f(...a);
        await this.held.get(name);
        return answer;
      };
    const needStore = <T>(f: () => Result<T>): Result<T> => (this.open ? f() : (recording.no_store as Result<T>));
    return {
      kind: 'mock',
      openStore: call('openStore', (path: string): Result<StoreInfo> => {
        const other = recording.other_stores[path];
        const error = recording.open_errors[path];
        if (path === recording.root) {
          if (this.root !== recording.root) this.seed();
        } else if (error?.status === 'error' && !(other?.status === 'ok' && this.created.has(path))) return failed(error.error);
        else if (other?.status === 'ok') {
          this.topics.clear();
          this.groups.clear();
        } else if (error?.status === 'error') return failed(error.error);
        else return preview(`opening ${path} (it has ${recording.root} and ${Object.keys(recording.other_stores).join(', ')})`);
        this.open = true;
        this.root = path;
        this.recent = [path, ...this.recent.filter((r) => r !== path)];
        return ok(this.info());
      }),
      createStore: call('createStore', (path: string): Result<StoreInfo> => {
        // As the app: an empty or missing folder becomes an (empty) store; other refusals stand.
        const error = recording.open_errors[path];
        const made = recording.other_stores[Object.keys(recording.other_stores)[0]];
        if (path !== recording.root && error?.status === 'error' && error.error.code === 'not_a_store') return failed(error.error);
        if (path === recording.root) {
          if (this.root !== recording.root) this.seed();
        } else {
          if (made?.status !== 'ok') return preview(`creating a store at ${path}`);
          this.topics.clear();
          this.groups.clear();
          this.created.add(path);
        }
        this.open = true;
        this.root = path;
        this.recent = [path, ...this.recent.filter((r) => r !== path)];
        return ok(this.info());
      }),
      launchError: call('launchError', () => {
        const l = this.launch;
        this.launch = null;
        return ok(l);
      }),
      pickFolder: call('pickFolder', () => ok(this.pickResult)),
      recentStores: call('recentStores', () => ok([...this.recent])),
      openDemoStore: call('openDemoStore', () => {
        if (this.root !== recording.root) this.seed();
        this.open = true;
        return ok(this.info());
      }),
      storeInfo: call('storeInfo', () => needStore(() => ok(this.info()))),
      closeStore: call('closeStore', () => {
        for (const d of this.demos.values()) for (const t of d.timers) clearInterval(t);
        this.open = false;
        return ok(null);
      }),
      rawLine: call('rawLine', (topic: string, partition: number, offset: Offset) => this.rawLine(topic, partition, offset)),
      describeTopic: call('describeTopic', (topic: string): Result<TopicDetail> => {
        const t = this.topic(topic);
        return 'code' in t ? failed(t) : this.detail(t);
      }),
      readPage: call('readPage', (topic: string, partition: number, from: Offset, limit: number) => this.readPage(topic, partition, from, limit)),
      offsetAtTime: call('offsetAtTime', (topic: string, partition: number, unix: number) => this.offsetAtTime(topic, partition, unix)),
      search: call('search', (topic: string, query: SearchQuery, onEvent: (e: SearchEvent) => void): Result<SearchId> => {
        const t = this.topic(topic);
        if ('code' in t) return failed(t);
        const rec = recording.searches.find((s) => s.topic === topic && same(s.query, query));
        if (!rec) return preview(`a search of ${topic} for ${JSON.stringify(query.filter ?? query.text ?? query.key ?? '')} (recorded: ${recording.searches.map((s) => `${s.topic} ${JSON.stringify(s.query.filter ?? s.query.text ?? s.query.key)}`).join(', ')})`);
        for (const old of this.searches.values()) old.cancelled = true;
        this.searches.clear();
        const id = ++this.nextSearch;
        const state = { cancelled: false, rows: rec.rows, done: false, settled: 0 };
        this.searches.set(id, state);
        void this.stream(topic, rec.events, state, onEvent);
        return ok(id);
      }),
      cancelSearch: call('cancelSearch', (id: SearchId) => {
        const s = this.searches.get(id);
        if (s) s.cancelled = true;
        return ok(null);
      }),
      dropSearch: call('dropSearch', (id: SearchId) => {
        const s = this.searches.get(id);
        if (s) s.cancelled = true;
        this.searches.delete(id);
        return ok(null);
      }),
      searchRows: call('searchRows', (id: SearchId, from: Count, limit: number): Result<SearchRows> => {
        const s = this.searches.get(id);
        if (!s) return failed({ code: 'no_search', message: 'that search is gone: a newer one replaced it, or the store was closed; search again' });
        // While it runs, the hits settled so far; a cancelled one keeps them.
        const rows = s.done && !s.cancelled ? s.rows : s.rows.slice(0, s.settled);
        const a = Number(from);
        return ok({ from, rows: copy(rows.slice(a, a + Math.max(1, Math.min(MAX_PAGE, limit)))), hits: String(rows.length) });
      }),
      checkFilter: call('checkFilter', (expr: string): Result<FilterCheck> => {
        const rec = recording.filter_checks.find((c) => c.expr === expr);
        return rec ? ok(copy(rec.answer)) : preview(`a check of the filter ${JSON.stringify(expr)} (recorded: ${recording.filter_checks.map((c) => JSON.stringify(c.expr)).join(', ')})`);
      }),
      topicFields: call('topicFields', (topic: string): Result<string[]> => {
        const t = this.topic(topic);
        if ('code' in t) return failed(t);
        return copy(t.fields);
      }),
      timelineBefore: call('timelineBefore', (topic: string, partitions: number[] | null, before: Offset[] | null, limit: number) =>
        this.timelinePage(topic, partitions, 'before', before, limit),
      ),
      timelineAfter: call('timelineAfter', (topic: string, partitions: number[] | null, start: TimelineAnchor, limit: number) =>
        this.timelinePage(topic, partitions, 'after', start, limit),
      ),
      produce: call('produce', (topic: string, key: KeyText, payload: ProducePayload): Result<Produced> => {
        const t = this.topic(topic);
        if ('code' in t) return failed(t);
        const rec = recording.produce.find((p) => p.topic === topic && p.key === key && same(p.payload, payload));
        if (!rec) return preview(`sending that message to ${topic} (it sends only the recorded ones)`);
        if (rec.answer.status === 'error' || !rec.row) return copy(rec.answer);
        // The recorded message, at the partition's end now.
        const partition = rec.answer.data.partition;
        const offset = this.end(t, partition).toString();
        this.appendRow(t, partition, { ...copy(rec.row), offset });
        return ok({ partition, offset });
      }),
      createTopic: call('createTopic', (nt: NewTopic): Result<TopicSummary> =>
        needStore(() => {
          const rec = recording.create_topic.find((c) => same(c.request, nt) && c.existed === this.topics.has(nt.name.trim()));
          if (!rec) return preview(`creating topic ${JSON.stringify(nt.name)} as ${nt.key_type} × ${nt.partitions}`);
          if (rec.answer.status === 'ok' && rec.detail) {
            const name = rec.answer.data.name;
            this.topics.set(name, topicState(name, { detail: rec.detail, partitions: [], raw_lines: {}, times: [], groups: rec.groups ?? ok([]) }, rec.answer.data));
            this.emitChange({ topics: [name], groups: [], structure: true });
          }
          return copy(rec.answer);
        }),
      ),
      topicGroups: call('topicGroups', (topic: string): Result<string[]> => {
        const t = this.topic(topic);
        if ('code' in t) return failed(t);
        if (t.groups.status === 'error') return copy(t.groups);
        return ok(t.groups.data.filter((g) => this.groups.has(g)));
      }),
      deleteTopic: call('deleteTopic', (topic: string, confirm: string): Result<DeletedTopic> =>
        needStore(() => {
          const rec = recording.delete_topic.find((d) => d.topic === topic && d.confirm === confirm);
          if (!rec || !this.topics.has(topic)) return preview(`deleting ${topic}`);
          if (rec.answer.status === 'ok') {
            this.topics.delete(topic);
            for (const g of rec.answer.data.groups) this.groups.delete(g);
            this.emitChange({ topics: [topic], groups: rec.answer.data.groups, structure: true });
          }
          return copy(rec.answer);
        }),
      ),
      describeGroup: call('describeGroup', (group: string): Result<GroupDetail> =>
        needStore(() => {
          const d = this.describeGroupNow(group);
          return d ? ok(d) : preview(`a group ${JSON.stringify(group)}`);
        }),
      ),
      resetGroup: call('resetGroup', (group: string, request: ResetRequest): Result<ResetPlanDto> =>
        needStore(() => {
          const rec = recording.resets.find((r) => r.group === group && same(r.request, request));
          if (!rec) return preview(`that reset of ${group} (${JSON.stringify(request)})`);
          if (rec.answer.status === 'ok' && rec.after) this.setGroup(group, rec.after);
          return copy(rec.answer);
        }),
      ),
      triggerRound: call('triggerRound', (group: string, windowMs: number): Result<null> =>
        needStore(() => {
          const rec = recording.rounds.find((r) => r.group === group && r.window_ms === windowMs);
          if (!rec) return preview(`a round of ${group} with a window of ${windowMs} ms (recorded: ${recording.rounds.map((r) => `${r.group} ${r.window_ms} ms`).join(', ')})`);
          this.setGroup(group, rec.open);
          this.later(windowMs, () => this.setGroup(group, rec.ended));
          return ok(null);
        }),
      ),
      demoStartMember: call('demoStartMember', (topic: string, group: string, windowMs: number, rate: number, joinLive: boolean): Result<Handle> =>
        needStore(() => this.refuseBusyGroup(group, joinLive) ?? this.startDemo(topic, group, windowMs, rate)),
      ),
      demoStopMember: call('demoStopMember', (handle: Handle, kill: boolean): Result<null> => this.stopDemo(handle, kill)),
      demoMembers: call('demoMembers', (): Result<DemoMember[]> => ok(this.listDemos())),
      lagHistory: call('lagHistory', (group: string, span: HistorySpan): Result<LagHistoryDto> =>
        needStore(() => {
          const rec = recording.lag_histories?.find((h) => h.group === group && h.span === span);
          return rec ? copy(rec.answer) : preview(`the ${span} lag history of ${group}`);
        }),
      ),
      lagCheck: call('lagCheck', (group: string, thresholds: LagAlertThresholds): Result<LagCheckDto> =>
        needStore(() => {
          const set = this.lagChecks.get(group);
          if (set) return copy(set);
          const rec = recording.lag_checks?.find((c) => c.group === group && same(c.thresholds, thresholds));
          return rec ? copy(rec.answer) : preview(`a lag check of ${group} against ${JSON.stringify(thresholds)}`);
        }),
      ),
      exportGroupOffsets: call('exportGroupOffsets', (group: string): Result<string | null> =>
        needStore(() => (this.groups.has(group) ? ok(this.exportPath) : preview(`a group ${JSON.stringify(group)}`))),
      ),
      pickOffsetsFile: call('pickOffsetsFile', (): Result<OffsetsFile | null> => ok(copy(this.offsetsFile))),
      groupDeletePreview: call('groupDeletePreview', (group: string): Result<GroupDeletePreview> =>
        needStore(() => {
          const rec = recording.delete_previews?.[group];
          return rec && this.groups.has(group) ? copy(rec) : preview(`deleting ${group}`);
        }),
      ),
      deleteGroup: call('deleteGroup', (group: string, confirm: string): Result<DeletedGroup> =>
        needStore(() => {
          const rec = recording.delete_group?.find((d) => d.group === group && d.confirm === confirm);
          if (!rec || !this.groups.has(group)) return preview(`deleting ${group} (confirmed as ${JSON.stringify(confirm)})`);
          if (rec.answer.status === 'ok') {
            this.groups.delete(group);
            this.emitChange({ topics: [], groups: [group], structure: true });
          }
          return copy(rec.answer);
        }),
      ),
      notify: call('notify', (title: string, body: string): Result<null> => {
        this.notifications.push({ title, body });
        return ok(null);
      }),
      pickSaveFile: call('pickSaveFile', (): Result<string | null> => ok(this.pickFileResult)),
      pickOpenFile: call('pickOpenFile', (): Result<string | null> => ok(this.pickFileResult)),
      exportMessages: call('exportMessages', (request: ExportRequest, onEvent: (e: TransferEvent) => void): Result<TransferId> =>
        needStore(() => {
          // The same request was recorded twice when the first wrote the file and the second was
          // refused for it (target_exists): which one answers depends on the file being there.
          const refused = (x: { events: TransferEvent[] }) => x.events.some((e) => e.event === 'failed' && e.error.code === 'target_exists');
          const there = this.exportedFiles.has(request.path);
          const recs = recording.transfer.exports.filter((x) => same(x.request, request));
          const rec = recs.find((x) => refused(x) === there) ?? recs[0];
          if (!rec) return preview(`exporting to ${request.path} (recorded: ${recording.transfer.exports.map((x) => x.request.path).join(', ')})`);
          if (rec.events.some((e) => e.event === 'done') && request.format !== 'store') this.exportedFiles.add(request.path);
          return this.streamTransfer(rec.events, onEvent);
        }),
      ),
      importFile: call('importFile', (request: ImportRequest, onEvent: (e: TransferEvent) => void): Result<TransferId> =>
        needStore(() => {
          const rec = recording.transfer.imports.find((x) => same(x.request, request));
          if (!rec) return preview(`importing ${request.path} into ${request.topic} with those options`);
          return this.streamTransfer(rec.events, onEvent);
        }),
      ),
      csvColumns: call('csvColumns', (path: string): Result<string[]> => {
        const rec = recording.transfer.csv_columns.find((x) => x.path === path);
        return rec ? copy(rec.answer) : preview(`the columns of ${path}`);
      }),
      copyMessages: call('copyMessages', (request: CopyRequest): Result<TransferId> => preview(`copying ${request.topic} to ${request.target_topic}`)),
      cancelTransfer: call('cancelTransfer', (id: TransferId): Result<null> => {
        const t = this.transfers.get(id);
        if (t) t.cancelled = true;
        return ok(null);
      }),
      topicRetention: call('topicRetention', (topic: string): Result<RetentionDto | null> =>
        needStore(() => {
          if (this.retentionSaved.has(topic)) return ok(copy(this.retentionSaved.get(topic) ?? null));
          const rec = recording.transfer.retention[topic];
          return rec ? copy(rec) : preview(`the retention of ${topic}`);
        }),
      ),
      setRetention: call('setRetention', (topic: string, r: RetentionDto | null): Result<RetentionDto | null> =>
        needStore(() => {
          this.retentionSaved.set(topic, copy(r));
          return ok(copy(r));
        }),
      ),
      retentionPreview: call('retentionPreview', (topic: string, r: RetentionDto | null, force: boolean): Result<RetentionPlanDto> =>
        needStore(() => {
          const rec = recording.transfer.previews.find((x) => x.topic === topic && same(x.retention, r) && x.force === force);
          return rec ? copy(rec.answer) : preview(`a retention preview of ${topic} for ${JSON.stringify(r)}`);
        }),
      ),
      // The recorded dry run of the saved setting, as applied (the files are not removed here).
      applyRetention: call('applyRetention', (topic: string, force: boolean): Result<RetentionPlanDto> =>
        needStore(() => {
          const saved = this.retentionSaved.get(topic) ?? null;
          const rec = recording.transfer.previews.find((x) => x.topic === topic && same(x.retention, saved) && x.force === force);
          if (rec?.answer.status !== 'ok') return preview(`applying the retention of ${topic}`);
          return ok({ ...copy(rec.answer.data), applied: true });
        }),
      ),
      purgeTopic: call('purgeTopic', (topic: string, before: number | null, apply: boolean, force: boolean): Result<RetentionPlanDto> =>
        needStore(() => {
          const rec = recording.transfer.purges.find((x) => x.topic === topic && x.before === before && x.force === force);
          if (!rec || apply) return preview(`${apply ? 'purging' : 'a purge preview of'} ${topic}`);
          return copy(rec.answer);
        }),
      ),
      takeRetentionNotices: call('takeRetentionNotices', (): Result<RetentionPlanDto[]> => ok(this.retentionNotices.splice(0))),
      onRetentionApplied: async (cb): Promise<Unlisten> => {
        this.retentionListeners.add(cb);
        return () => this.retentionListeners.delete(cb);
      },
      onStoreChanged: async (cb): Promise<Unlisten> => {
        this.changeListeners.add(cb);
        return () => this.changeListeners.delete(cb);
      },
      onDragDrop: async (cb): Promise<Unlisten> => {
        this.dropListeners.add(cb);
        return () => this.dropListeners.delete(cb);
      },
      newWindow: call('newWindow', () => preview('a new window')),
      about: call('about', () => ok(recording.versions)),
      indexCacheInfo: call('indexCacheInfo', () => ok({ path: '/home/you/.cache/dev.twainmq.desktop/line-index', files: 1, bytes: '2048' })),
      clearIndexCache: call('clearIndexCache', () => ok({ path: '/home/you/.cache/dev.twainmq.desktop/line-index', files: 0, bytes: '0' })),
      onMenu: async (cb): Promise<Unlisten> => {
        this.menuListeners.add(cb);
        return () => this.menuListeners.delete(cb);
      },
      viewState: call('viewState', (dark: boolean, checks: MenuChecks): Result<null> => {
        this.viewStates.push({ dark, checks: copy(checks) });
        return ok(null);
      }),
    };
  }

  // ---- the balancing demo: recorded scenes, a step a start, kill or stop --------------------

  private scene(group: string): DemoRun | null {
    let run = this.demoRuns.get(group);
    if (!run) {
      const scene = recording.demos[group];
      if (!scene) return null;
      run = { scene, next: 0 };
      this.demoRuns.set(group, run);
    }
    return run;
  }

  private scenes(): string {
    return Object.values(recording.demos)
      .map((s) => `${s.group} on ${s.topic}: ${s.steps.map((x) => `${x.do} ${x.handle}`).join(', ')}`)
      .join('; ');
  }

  /** As the backend (members.rs check_group_free): members this app did not start are in the group, unconfirmed. */
  private refuseBusyGroup(group: string, joinLive: boolean): Result<Handle> | null {
    if (joinLive) return null;
    // Every member this app started is ours, killed or stopped too.
    const ours = new Set([...this.demos.values()].filter((d) => d.group === group).map((d) => d.member_id));
    const others = (this.groups.get(group)?.detail.members ?? []).filter((m) => m.status !== 'gone' && !ours.has(m.id)).map((m) => `m${m.id}`);
    if (others.length === 0) return null;
    return failed({
      code: 'group_in_use',
      message: `group ${group} has ${others.length} member${others.length === 1 ? '' : 's'} this app did not start (${others.join(', ')}): a demo member would join it, take some of their partitions at the next round and commit what it reads, so they would never process those messages. Try the demo in a group of its own, or join anyway`,
    });
  }

  private startDemo(topic: string, group: string, windowMs: number, rate: number): Result<Handle> {
    const run = this.scene(group);
    const step = run?.scene.steps[run.next];
    if (!run || run.scene.topic !== topic || step?.do !== 'start') return preview(`starting a member of ${group} on ${topic} (recorded: ${this.scenes()})`);
    run.next++;
    const d: DemoState = {
      handle: step.handle,
      member_id: 0,
      topic,
      group,
      window_ms: windowMs,
      rate,
      status: 'joining',
      problem: null,
      partitions: [],
      consumed: '0',
      per_second: [],
      timers: [],
    };
    this.demos.set(d.handle, d);
    this.later(30, () => {
      if (d.status !== 'joining') return;
      d.member_id = step.member_id ?? 0;
      d.status = 'running';
      this.setGroup(group, step.detail);
      // A steady `rate` a second (it is a demo of the map, not of throughput).
      d.timers.push(
        setInterval(() => {
          if (d.status !== 'running') return;
          d.per_second = [...d.per_second, rate].slice(-60);
          d.consumed = (BigInt(d.consumed) + BigInt(rate)).toString();
        }, 1000),
      );
    });
    return ok(d.handle);
  }

  private stopDemo(handle: Handle, kill: boolean): Result<null> {
    const d = this.demos.get(handle);
    if (!d) return preview(`a demo member ${handle}`);
    if (d.status !== 'running' && d.status !== 'joining') return ok(null);
    const run = this.demoRuns.get(d.group);
    const step = run?.scene.steps[run.next];
    if (!run || step?.handle !== handle || step.do !== (kill ? 'kill' : 'stop')) {
      return preview(`${kill ? 'killing' : 'stopping'} member ${handle} now (recorded: ${this.scenes()})`);
    }
    run.next++;
    for (const t of d.timers) clearInterval(t);
    d.timers = [];
    d.status = kill ? 'killed' : 'stopped';
    this.setGroup(d.group, step.detail);
    // After a kill, the survivor's next round (about two windows later).
    const then = step.then;
    if (then) this.later(Math.max(300, 2 * run.scene.window_ms), () => this.setGroup(d.group, then));
    return ok(null);
  }

  listDemos(): DemoMember[] {
    return [...this.demos.values()].map(({ timers: _, ...d }) => {
      void _;
      const held = this.groups.get(d.group)?.detail.members.find((m) => m.id === d.member_id)?.partitions ?? [];
      return { ...copy(d), partitions: d.status === 'running' ? [...held] : [] };
    });
  }
}

/** A mock backend (and its store, for tests to poke). */
export function createMockBackend(opts: MockOptions = {}, store = new MockStore(opts)): Backend & { store: MockStore } {
  return Object.assign(store.backend(), { store });
}

/**
 * The named exports of backend.ts, served by one shared MockStore: tests write
 * `vi.mock('../src/lib/backend', () => import('../src/lib/mockBackend').then((m) => m.mockModule()))`.
 */
export function mockModule(opts: MockOptions = {}) {
  const store = new MockStore({ open: true, ...opts });
  const b = store.backend();
  return {
    mockStore: store,
    backendKind: 'mock' as const,
    ...b,
  };
}
