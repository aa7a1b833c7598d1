// What the UI asks of a backend, and the shapes it answers in: the real one
// (backend.ts, over Tauri) and the test double (mockBackend.ts) both implement
// it, so neither imports the other.

import type {
  About,
  DeletedTopic,
  DemoMember,
  ErrorDto,
  FilterCheck,
  Count,
  SearchId,
  SearchRows,
  TimelineAnchor,
  TimelinePageDto,
  GroupDetail,
  Handle,
  IndexCacheInfo,
  KeyText,
  LaunchError,
  MenuAction,
  MenuChecks,
  NewTopic,
  Offset,
  Page,
  ProducePayload,
  Produced,
  RawLine,
  ResetPlanDto,
  ResetRequest,
  HistorySpan,
  LagHistoryDto,
  LagAlertThresholds,
  LagCheckDto,
  OffsetsFile,
  GroupDeletePreview,
  DeletedGroup,
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
  /**
   * Make an empty or missing folder a new store and open it (the explicit "Create a store
   * here"); a folder of other files is refused (not_a_store), an existing store just opens.
   */
  createStore(path: string): Promise<Result<StoreInfo>>;
  /** Why the store named on the command line did not open (null: it did, or none was named); once. */
  launchError(): Promise<Result<LaunchError | null>>;
  pickFolder(): Promise<Result<string | null>>;
  recentStores(): Promise<Result<string[]>>;
  openDemoStore(): Promise<Result<StoreInfo>>;
  storeInfo(): Promise<Result<StoreInfo>>;
  /** Close the open store (its watcher and demo members stop). */
  closeStore(): Promise<Result<null>>;
  /** The raw line of a message, with its file and 1-based line number (null: not found). */
  rawLine(topic: string, partition: number, offset: Offset): Promise<Result<RawLine | null>>;
  describeTopic(topic: string): Promise<Result<TopicDetail>>;
  readPage(topic: string, partition: number, from: Offset, limit: number): Promise<Result<Page>>;
  offsetAtTime(topic: string, partition: number, unixSeconds: number): Promise<Result<Offset | null>>;
  /**
   * Start a search session (a newer one replaces it): `onEvent` gets progress, then done
   * or failed; the hits stay in the backend, read with searchRows. A filter that does not
   * compile is refused at once (code invalid_filter).
   */
  search(topic: string, query: SearchQuery, onEvent: (e: SearchEvent) => void): Promise<Result<SearchId>>;
  cancelSearch(id: SearchId): Promise<Result<null>>;
  dropSearch(id: SearchId): Promise<Result<null>>;
  /** Hits from..from+limit of a finished search, in timeline order. */
  searchRows(id: SearchId, from: Count, limit: number): Promise<Result<SearchRows>>;
  /** Whether a CEL filter compiles, and where not. */
  checkFilter(expr: string): Promise<Result<FilterCheck>>;
  /** JSON field paths seen in a topic's newest messages (value.x), for completion. */
  topicFields(topic: string): Promise<Result<string[]>>;
  /** The timeline page before a cut (null: the end, so the newest messages). */
  timelineBefore(topic: string, partitions: number[] | null, before: Offset[] | null, limit: number): Promise<Result<TimelinePageDto>>;
  /** The timeline page from an anchor on. */
  timelineAfter(topic: string, partitions: number[] | null, start: TimelineAnchor, limit: number): Promise<Result<TimelinePageDto>>;
  produce(topic: string, key: KeyText, payload: ProducePayload): Promise<Result<Produced>>;
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
  /**
   * Start a member inside the app; resolves to its handle. A group with members the app did not
   * start is refused (group_in_use, saying what the demo would do to them) unless `joinLive`.
   */
  demoStartMember(topic: string, group: string, windowMs: number, rate: number, joinLive: boolean): Promise<Result<Handle>>;
  /** Stop a demo member gracefully (commit and leave) or kill it (no commit, no goodbye). */
  demoStopMember(handle: Handle, kill: boolean): Promise<Result<null>>;
  demoMembers(): Promise<Result<DemoMember[]>>;
  /** A group's lag over a past span, computed by the engine from the files. */
  lagHistory(group: string, span: HistorySpan): Promise<Result<LagHistoryDto>>;
  /** A group's lag against alert thresholds now (the rule of `twainmq groups lag`). */
  lagCheck(group: string, thresholds: LagAlertThresholds): Promise<Result<LagCheckDto>>;
  /** Save a group's offsets (`groups export` JSON) via a native save dialog; the path, or null if cancelled. */
  exportGroupOffsets(group: string): Promise<Result<string | null>>;
  /** Pick and read an offsets file via a native open dialog (nothing applied); null if cancelled. */
  pickOffsetsFile(): Promise<Result<OffsetsFile | null>>;
  /** What deleting a group removes. */
  groupDeletePreview(group: string): Promise<Result<GroupDeletePreview>>;
  /** Delete a group once `confirmName` is its name. */
  deleteGroup(group: string, confirmName: string): Promise<Result<DeletedGroup>>;
  /** Show a desktop notification (lag alerts); an error when notifications are not allowed. */
  notify(title: string, body: string): Promise<Result<null>>;
  /** A native save dialog (null: cancelled). */
  pickSaveFile(title: string, defaultName: string, extensions: string[]): Promise<Result<string | null>>;
  /** A native open dialog for one file (null: cancelled). */
  pickOpenFile(title: string, extensions: string[]): Promise<Result<string | null>>;
  /** Export a selection: progress, then done or failed, on `onEvent`. */
  exportMessages(request: ExportRequest, onEvent: (e: TransferEvent) => void): Promise<Result<TransferId>>;
  /** Import a file into a topic (or only check it, `dry_run`): progress, skipped lines, then done or failed. */
  importFile(request: ImportRequest, onEvent: (e: TransferEvent) => void): Promise<Result<TransferId>>;
  /** The header row of a CSV file. */
  csvColumns(path: string): Promise<Result<string[]>>;
  /** Copy a selection into another topic: progress, then done or failed. */
  copyMessages(request: CopyRequest, onEvent: (e: TransferEvent) => void): Promise<Result<TransferId>>;
  cancelTransfer(id: TransferId): Promise<Result<null>>;
  topicRetention(topic: string): Promise<Result<RetentionDto | null>>;
  /** Save (null: remove) a topic's retention; deletes nothing. */
  setRetention(topic: string, retention: RetentionDto | null): Promise<Result<RetentionDto | null>>;
  /** What a retention (null: the topic's own) would delete now. */
  retentionPreview(topic: string, retention: RetentionDto | null, force: boolean): Promise<Result<RetentionPlanDto>>;
  applyRetention(topic: string, force: boolean): Promise<Result<RetentionPlanDto>>;
  /** A purge's plan; with `apply` (and the topic's name as `confirm`) it deletes. */
  purgeTopic(topic: string, before: number | null, apply: boolean, force: boolean, confirm: string): Promise<Result<RetentionPlanDto>>;
  /** What the app's own retention runs removed and the window has not taken yet (taking empties it). */
  takeRetentionNotices(): Promise<Result<RetentionPlanDto[]>>;
  /** Told when the app's own retention run removed something (then take the notices). */
  onRetentionApplied(cb: (r: RetentionApplied) => void): Promise<Unlisten>;
  /** Store changes pushed by the file watcher. */
  onStoreChanged(cb: (c: StoreChanged) => void): Promise<Unlisten>;
  /** Folders dragged onto the window. */
  onDragDrop(cb: (d: DragDrop) => void): Promise<Unlisten>;
  /** A new window, with `path` (when given) open in it. */
  newWindow(path: string | null): Promise<Result<null>>;
  /** The line-index cache: where, how many stores, how big. */
  indexCacheInfo(): Promise<Result<IndexCacheInfo>>;
  /** Empty the line-index cache (open stores write theirs again when they close). */
  clearIndexCache(): Promise<Result<IndexCacheInfo>>;
  /** The app's, the engine's version and the 0.2.3 compatibility (Help → About). */
  about(): Promise<Result<About>>;
  /**
   * This window's look and View toggles, for the native parts: its theme (the menu bar follows
   * dark or light) and, while it has the focus, the View menu's check marks.
   */
  viewState(dark: boolean, checks: MenuChecks): Promise<Result<null>>;
  /** Items chosen in the native menu bar, for this window. */
  onMenu(cb: (a: MenuAction) => void): Promise<Unlisten>;
}
