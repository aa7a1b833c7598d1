// The mock's store: what the recording holds, and what tests and the live demo change
// (rows appended, groups stepped, listeners, timers); the commands answer from it.

import type { DemoMember, DragDrop, Result } from '../api';
import type { ErrorDto, GroupDetail, GroupSummary, Handle, KeyText, LagCheckDto, LaunchError, MenuAction, MenuChecks, MessageRow, Offset, OffsetsFile, Page, Produced, RawLine, RetentionApplied, RetentionDue, RetentionDto, RetentionLogEntry, RetentionMode, RetentionPlanDto, Row, SearchEvent, ProblemDto, ShrinkDto, StoreChanged, StoreInfo, StorePresence, TimelineAnchor, TimelinePageDto, TopicDetail, TopicSummary, TransferEvent, TransferId } from '../api';
import { offsetAtTimeOf, pageOf, partitionEnd, rawLineOf, timelinePageOf, topicDetail, topicState, topicSummary, type TopicState } from './topics';
import { byName, copy, failed, ok, recording, type DemoScene, type MockOptions } from './recording';

export type DemoState = DemoMember & { timers: ReturnType<typeof setInterval>[] };
export type DemoRun = { scene: DemoScene; next: number };
export type GroupState = { detail: GroupDetail; /** ms (by the mock's clock) when this state began. */ since: number };
export class MockState {
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
  /** Why the pretend store cannot be written (tests set it; `seed` clears it). */
  readOnly: string | null = null;
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
  transfers = new Map<number, { cancelled: boolean }>();
  nextTransfer = 0;
  retentionListeners = new Set<(r: RetentionApplied) => void>();
  retentionDueListeners = new Set<(r: RetentionDue) => void>();
  presenceListeners = new Set<(p: StorePresence) => void>();
  /** What retention would delete, asked about and not taken yet (a test sets it). */
  retentionDue: RetentionPlanDto[] = [];
  /** The store's retention setting (the app's default: ask). */
  retentionMode: RetentionMode = 'ask';
  /** The app's retention log of this store, newest first. */
  retentionLog: RetentionLogEntry[] = [];
  /** Files a test says were found cut short, and names Windows cannot hold (in every summary). */
  shrunk: ShrinkDto[] = [];
  nameProblems: ProblemDto[] = [];
  /** The store's folder is not there (a test sets it through emitPresence). */
  presence: StorePresence | null = null;
  /** What the window told the native menu (theme, View marks), in order: tests read it. */
  viewStates: { dark: boolean; checks: MenuChecks }[] = [];
  /** Files the pretend exports wrote (an export to one of them unconfirmed is refused). */
  exportedFiles = new Set<string>();
  /** Paths payloads were saved to (by the detail pane's Save), in order. */
  savedPayloads: string[] = [];
  /** Plans a test says the app's retention removed, until taken. */
  retentionNotices: RetentionPlanDto[] = [];

  /** Stream a recorded transfer: three progress events, then its recorded end (or a cancelled end). */
  streamTransfer(events: TransferEvent[], onEvent: (e: TransferEvent) => void): Result<TransferId> {
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

  /** Ask listeners about retention due (tests call it). */
  emitRetentionDue(plans: RetentionPlanDto[]): void {
    this.retentionDue = copy(plans);
    for (const l of this.retentionDueListeners) l({ plans: copy(plans) });
  }

  /** Tell listeners the store's folder went or came back (tests call it). */
  emitPresence(p: StorePresence): void {
    this.presence = p.state === 'present' ? null : copy(p);
    for (const l of this.presenceListeners) l(copy(p));
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
  demoRuns = new Map<string, DemoRun>();
  timers = new Set<ReturnType<typeof setTimeout>>();
  changeListeners = new Set<(c: StoreChanged) => void>();
  dropListeners = new Set<(d: DragDrop) => void>();
  menuListeners = new Set<(a: MenuAction) => void>();
  searches = new Map<number, { cancelled: boolean; rows: MessageRow[]; done: boolean; settled: number }>();
  nextSearch = 0;
  /** Folders made stores by createStore: they open from then on. */
  created = new Set<string>();
  liveTimer: ReturnType<typeof setInterval> | null = null;

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
    this.retentionDue = [];
    this.retentionMode = 'ask';
    this.retentionLog = [];
    this.presence = null;
    this.shrunk = [];
    this.nameProblems = [];
    this.exportedFiles?.clear();
    if (this.savedPayloads) this.savedPayloads.length = 0;
    this.stopTimers();
    this.root = recording.root;
    this.readOnly = null;
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
    this.retentionDueListeners?.clear();
    this.presenceListeners?.clear();
  }

  stopTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const d of this.demos.values()) for (const t of d.timers) clearInterval(t);
  }

  later(ms: number, f: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      f();
    }, ms);
    this.timers.add(t);
  }

  // ---- what the store holds now ----------------------------------------------

  summary(t: TopicState): TopicSummary {
    return topicSummary(t);
  }

  /** A partition's end: recorded, plus the rows appended to it. */
  end(t: TopicState, index: number): bigint {
    return partitionEnd(t, index);
  }

  detail(t: TopicState): Result<TopicDetail> {
    return topicDetail(t);
  }

  readPage(name: string, partition: number, from: Offset, limit: number): Result<Page> {
    const t = this.topic(name);
    return 'code' in t ? failed(t) : pageOf(t, partition, from, limit);
  }

  rawLine(name: string, partition: number, offset: Offset): Result<RawLine | null> {
    const t = this.topic(name);
    return 'code' in t ? failed(t) : rawLineOf(t, partition, offset);
  }

  offsetAtTime(name: string, partition: number, unix: number): Result<Offset | null> {
    const t = this.topic(name);
    return 'code' in t ? failed(t) : offsetAtTimeOf(t, partition, unix);
  }

  timelinePage(name: string, partitions: number[] | null, dir: 'before' | 'after', anchor: TimelineAnchor | Offset[] | null, limit: number): Result<TimelinePageDto> {
    const t = this.topic(name);
    return 'code' in t ? failed(t) : timelinePageOf(t, partitions, dir, anchor, limit);
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
      shrunk: copy(this.shrunk),
      name_problems: copy(this.nameProblems),
      read_only: this.readOnly,
    };
  }

  describeGroupNow(name: string): GroupDetail | null {
    const g = this.groups.get(name);
    if (!g) return null;
    return { ...copy(g.detail), now: (g.detail.now ?? recording.now) + (this.clock() - g.since) / 1000 };
  }

  setGroup(name: string, detail: GroupDetail): void {
    this.groups.set(name, { detail: copy(detail), since: this.clock() });
    this.emitChange({ topics: [], groups: [name], structure: false });
  }

  /** The topic, or the answer for a call on it when there is none to be had. */
  topic(name: string): TopicState | ErrorDto {
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
      key_kind: /^(char\d+|text|any)$/.test(t.summary.key_type) ? 'str' : t.summary.key_type === 'bytes' ? 'bytes' : 'int',
      timestamp: this.clock() / 1000,
      kind: 'str',
      text,
      hex: null,
      class: null,
      type_id: null,
      fields_json: null,
      fields_pretty: null,
      size: text === null ? 0 : new TextEncoder().encode(text).length,
      truncated: false,
      ...fields,
    };
    this.appendRow(t, partition, row);
    return { partition, offset };
  }

  appendRow(t: TopicState, partition: number, row: Row): void {
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

  async wait(): Promise<void> {
    if (this.latency > 0) await new Promise((r) => setTimeout(r, this.latency));
    else await Promise.resolve();
  }

  // ---- reads ------------------------------------------------------------------------

  /** Stream a recorded search: progress in steps (hits growing to the recorded count), then its end. */
  async stream(name: string, events: SearchEvent[], state: { cancelled: boolean; done: boolean; settled: number }, send: (e: SearchEvent) => void): Promise<void> {
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
}
