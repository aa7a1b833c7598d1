// The recording the mock replays: what the real backend answered, recorded by
// `cargo xtask ui-fixture` (xtask/src/record) into ui/fixtures/recorded-store.json,
// and the helpers every part of the mock answers with.

import type { About, DeletedGroup, DeletedTopic, ErrorDto, ExportRequest, FilterCheck, GroupDeletePreview, GroupDetail, Handle, HistorySpan, ImportRequest, KeyText, LagAlertThresholds, LagCheckDto, LagHistoryDto, MessageRow, NewTopic, Offset, Page, ProducePayload, Produced, RawLine, ResetPlanDto, ResetRequest, RetentionDto, RetentionPlanDto, Row, SearchEvent, SearchQuery, StoreCheck, StoreInfo, TimelineAnchor, TimelinePageDto, TopicDetail, TopicSummary, TransferEvent, Bytes, Incarnation, KeyInput, PayloadSlice, SavedPayload } from '../api';
import type { Result } from '../api';
import recordedText from '../../../fixtures/recorded-store.json?raw';

/** In the recording, so scripts/check-bundle.sh can tell that recorded data was bundled. */
const RECORDED_MARKER = '__TWAINMQ_RECORDED_DATA__';

export type RecordedPartition = { partition: number; rows: Row[]; next: Offset; end: Offset };

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

export type DemoStep = { do: 'start' | 'kill' | 'stop'; handle: Handle; member_id?: number; detail: GroupDetail; then?: GroupDetail };
export type DemoScene = { topic: string; group: string; window_ms: number; steps: DemoStep[] };

/** The recording's shape (see src-tauri/src/record.rs). */
export type Recording = {
  marker: string;
  about: string;
  /** The about command's answer. */
  versions: About;
  now: number;
  root: string;
  info: Result<StoreInfo>;
  check?: Result<StoreCheck>;
  topics: Record<string, RecordedTopic>;
  groups: Record<string, Result<GroupDetail>>;
  page_checks: { topic: string; partition: number; from: Offset; limit: number; answer: Result<Page> }[];
  searches: { topic: string; query: SearchQuery; events: SearchEvent[]; rows: MessageRow[] }[];
  filter_checks: { expr: string; answer: FilterCheck }[];
  gone: Record<string, Result<TopicDetail>>;
  remade: Record<string, RecordedTopic & { summary: TopicSummary }>;
  no_store: Result<null>;
  produce: { topic: string; key: string | KeyInput; payload: ProducePayload; answer: Result<Produced>; row: Row | null }[];
  /** A large message as the detail pane reads it (a preview, then slices) and saves it. */
  payloads: {
    slices: { topic: string; partition: number; offset: Offset; incarnation: Incarnation | null; from: Bytes; len: number; answer: Result<PayloadSlice> }[];
    saves: { topic: string; partition: number; offset: Offset; incarnation: Incarnation | null; path: string; answer: Result<SavedPayload> }[];
  };
  create_topic: { request: NewTopic; existed: boolean; answer: Result<TopicSummary>; detail: Result<TopicDetail> | null; groups: Result<string[]> | null }[];
  delete_topic: { topic: string; confirm: string; answer: Result<DeletedTopic> }[];
  resets: { group: string; request: ResetRequest; answer: Result<ResetPlanDto>; after?: GroupDetail }[];
  rounds: { group: string; window_ms: number; at: number; open: GroupDetail; ended: GroupDetail }[];
  demos: Record<string, DemoScene>;
  other_stores: Record<string, Result<StoreInfo>>;
  open_errors: Record<string, Result<null>>;
  /** Lag histories, lag checks, delete previews and deletions of groups. */
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

export const ok = <T>(data: T): Result<T> => ({ status: 'ok', data });
export const failed = <T>(error: ErrorDto): Result<T> => ({ status: 'error', error });
/** What the preview says of a request it has no recording of. */
export const preview = <T>(what: string): Result<T> => failed({ code: 'preview', message: `the preview replays recorded answers only, and has none for ${what}` });

/** JSON with keys in order, to compare requests with recorded ones. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );
}
export const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
export const copy = <T>(v: T): T => structuredClone(v);
export const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

