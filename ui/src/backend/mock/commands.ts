// The mock's answers to the backend's commands: each as the real backend gave it for
// the requests recorded, on the mock's store; a command with no line here answers
// "preview" (nothing recorded), so a command added to the bindings needs none.

import type { Backend, CommandName, Commands, Result, Unlisten } from '../api';
import type { CopyRequest, Count, MessageRef, RawLine, DeletedGroup, DeletedTopic, DemoMember, ExportRequest, FilterCheck, GroupDeletePreview, GroupDetail, Handle, HistorySpan, ImportRequest, KeyText, LagAlertThresholds, LagCheckDto, LagHistoryDto, MenuChecks, NewTopic, Offset, OffsetsFile, ProducePayload, Produced, ResetPlanDto, ResetRequest, RetentionDto, RetentionLog, RetentionMode, RetentionPlanDto, SearchEvent, SearchId, SearchQuery, SearchRows, StoreCheck, StoreInfo, StorePresence, TimelineAnchor, TopicDetail, TopicSummary, TransferEvent, TransferId, Bytes, Incarnation, KeyInput, PayloadSlice, SavedPayload } from '../api';
import { commands, MAX_PAGE } from '../bindings';
import type { MockState } from './state';
import { listDemos, refuseBusyGroup, startDemo, stopDemo } from './demos';
import { topicState } from './topics';
import { copy, failed, ok, preview, recording, same } from './recording';

export function mockCommands(store: MockState): Backend {
  const call =
    <A extends unknown[], T>(name: string, f: (...a: A) => Result<T> | Promise<Result<T>>) =>
    async (...a: A): Promise<Result<T>> => {
      store.calls.push([name, ...a]);
      await store.wait();
      const answer = await f(...a);
      await store.held.get(name);
      return answer;
    };
  const needStore = <T>(f: () => Result<T>): Result<T> => (store.open ? f() : (recording.no_store as Result<T>));
  const answers = {
    openStore: call('openStore', (path: string): Result<StoreInfo> => {
      const other = recording.other_stores[path];
      const error = recording.open_errors[path];
      if (path === recording.root) {
        if (store.root !== recording.root) store.seed();
      } else if (error?.status === 'error' && !(other?.status === 'ok' && store.created.has(path))) return failed(error.error);
      else if (other?.status === 'ok') {
        store.topics.clear();
        store.groups.clear();
      } else if (error?.status === 'error') return failed(error.error);
      else return preview(`opening ${path} (it has ${recording.root} and ${Object.keys(recording.other_stores).join(', ')})`);
      store.open = true;
      store.root = path;
      store.recent = [path, ...store.recent.filter((r) => r !== path)];
      return ok(store.info());
    }),
    createStore: call('createStore', (path: string): Result<StoreInfo> => {
      // As the app: an empty or missing folder becomes an (empty) store; other refusals stand.
      const error = recording.open_errors[path];
      const made = recording.other_stores[Object.keys(recording.other_stores)[0]];
      if (path !== recording.root && error?.status === 'error' && error.error.code === 'not_a_store') return failed(error.error);
      if (path === recording.root) {
        if (store.root !== recording.root) store.seed();
      } else {
        if (made?.status !== 'ok') return preview(`creating a store at ${path}`);
        store.topics.clear();
        store.groups.clear();
        store.created.add(path);
      }
      store.open = true;
      store.root = path;
      store.recent = [path, ...store.recent.filter((r) => r !== path)];
      return ok(store.info());
    }),
    launchError: call('launchError', () => {
      const l = store.launch;
      store.launch = null;
      return ok(l);
    }),
    pickFolder: call('pickFolder', () => ok(store.pickResult)),
    recentStores: call('recentStores', () => ok([...store.recent])),
    // No Kafka cluster in the recording: none saved (connecting answers "preview").
    savedConnections: call('savedConnections', () => ok([])),
    openDemoStore: call('openDemoStore', () => {
      if (store.root !== recording.root) store.seed();
      store.open = true;
      return ok(store.info());
    }),
    storeInfo: call('storeInfo', () => needStore(() => (store.presence ? failed({ code: 'store_gone', message: store.presence.message }) : ok(store.info())))),
    closeStore: call('closeStore', () => {
      store.presence = null;
      for (const d of store.demos.values()) for (const t of d.timers) clearInterval(t);
      store.open = false;
      return ok(null);
    }),
    rawLine: call('rawLine', (topic: string, partition: number, offset: Offset) => store.rawLine(topic, partition, offset)),
    rawLines: call('rawLines', (topic: string, messages: MessageRef[]): Result<RawLine[]> => {
      const out: RawLine[] = [];
      for (const m of messages) {
        const r = store.rawLine(topic, m.partition, m.offset);
        if (r.status === 'error') return r;
        if (r.data) out.push(r.data);
      }
      return ok(out);
    }),
    describeTopic: call('describeTopic', (topic: string): Result<TopicDetail> => {
      const t = store.topic(topic);
      return 'code' in t ? failed(t) : store.detail(t);
    }),
    readPage: call('readPage', (topic: string, partition: number, from: Offset, limit: number) => store.readPage(topic, partition, from, limit)),
    offsetAtTime: call('offsetAtTime', (topic: string, partition: number, unix: number | null) => store.offsetAtTime(topic, partition, unix ?? Number.NaN)),
    search: call('search', (topic: string, query: SearchQuery, onEvent: (e: SearchEvent) => void): Result<SearchId> => {
      const t = store.topic(topic);
      if ('code' in t) return failed(t);
      const rec = recording.searches.find((s) => s.topic === topic && same(s.query, query));
      if (!rec) return preview(`a search of ${topic} for ${JSON.stringify(query.filter ?? query.text ?? query.key ?? '')} (recorded: ${recording.searches.map((s) => `${s.topic} ${JSON.stringify(s.query.filter ?? s.query.text ?? s.query.key)}`).join(', ')})`);
      for (const old of store.searches.values()) old.cancelled = true;
      store.searches.clear();
      const id = ++store.nextSearch;
      const state = { cancelled: false, rows: rec.rows, done: false, settled: 0 };
      store.searches.set(id, state);
      void store.stream(topic, rec.events, state, onEvent);
      return ok(id);
    }),
    cancelSearch: call('cancelSearch', (id: SearchId) => {
      const s = store.searches.get(id);
      if (s) s.cancelled = true;
      return ok(null);
    }),
    dropSearch: call('dropSearch', (id: SearchId) => {
      const s = store.searches.get(id);
      if (s) s.cancelled = true;
      store.searches.delete(id);
      return ok(null);
    }),
    searchRows: call('searchRows', (id: SearchId, from: Count, limit: number): Result<SearchRows> => {
      const s = store.searches.get(id);
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
      const t = store.topic(topic);
      if ('code' in t) return failed(t);
      return copy(t.fields);
    }),
    timelineBefore: call('timelineBefore', (topic: string, partitions: number[] | null, before: Offset[] | null, limit: number) =>
      store.timelinePage(topic, partitions, 'before', before, limit),
    ),
    timelineAfter: call('timelineAfter', (topic: string, partitions: number[] | null, start: TimelineAnchor, limit: number) =>
      store.timelinePage(topic, partitions, 'after', start, limit),
    ),
    produce: call('produce', (topic: string, key: KeyInput, payload: ProducePayload): Result<Produced> => {
      const t = store.topic(topic);
      if ('code' in t) return failed(t);
      // The recorder sends each key as text (KeyInput::Text) and records that text.
      const rec = recording.produce.find((p) => p.topic === topic && same(typeof p.key === 'string' ? { as: 'text', text: p.key } : p.key, key) && same(p.payload, payload));
      if (!rec) return preview(`sending that message to ${topic} (it sends only the recorded ones)`);
      if (rec.answer.status === 'error' || !rec.row) return copy(rec.answer);
      // The recorded message, at the partition's end now.
      const partition = rec.answer.data.partition;
      const offset = store.end(t, partition).toString();
      store.appendRow(t, partition, { ...copy(rec.row), offset });
      return ok({ partition, offset });
    }),
    messagePayload: call('messagePayload', (topic: string, partition: number, offset: Offset, incarnation: Incarnation | null, from: Bytes, len: number): Result<PayloadSlice> => {
      const t = store.topic(topic);
      if ('code' in t) return failed(t);
      const rec = recording.payloads.slices.find((x) => x.topic === topic && x.partition === partition && x.offset === offset && x.incarnation === incarnation && x.from === from && x.len === len);
      return rec ? copy(rec.answer) : preview(`bytes ${from}+${len} of the payload at ${topic} P${partition} #${offset}`);
    }),
    savePayload: call('savePayload', (topic: string, partition: number, offset: Offset, incarnation: Incarnation | null, path: string): Result<SavedPayload> => {
      const rec = recording.payloads.saves.find((x) => x.topic === topic && x.partition === partition && x.offset === offset && x.incarnation === incarnation && x.path === path);
      if (!rec) return preview(`saving the payload at ${topic} P${partition} #${offset} to ${path} (recorded: ${recording.payloads.saves.map((x) => x.path).join(', ')})`);
      if (rec.answer.status === 'ok') store.savedPayloads.push(path);
      return copy(rec.answer);
    }),
    createTopic: call('createTopic', (nt: NewTopic): Result<TopicSummary> =>
      needStore(() => {
        const rec = recording.create_topic.find((c) => same(c.request, nt) && c.existed === store.topics.has(nt.name.trim()));
        if (!rec) return preview(`creating topic ${JSON.stringify(nt.name)} as ${nt.key_type} × ${nt.partitions}`);
        if (rec.answer.status === 'ok' && rec.detail) {
          const name = rec.answer.data.name;
          store.topics.set(name, topicState(name, { detail: rec.detail, partitions: [], raw_lines: {}, times: [], groups: rec.groups ?? ok([]) }, rec.answer.data));
          store.emitChange({ topics: [name], groups: [], structure: true });
        }
        return copy(rec.answer);
      }),
    ),
    topicGroups: call('topicGroups', (topic: string): Result<string[]> => {
      const t = store.topic(topic);
      if ('code' in t) return failed(t);
      if (t.groups.status === 'error') return copy(t.groups);
      return ok(t.groups.data.filter((g) => store.groups.has(g)));
    }),
    deleteTopic: call('deleteTopic', (topic: string, confirm: string): Result<DeletedTopic> =>
      needStore(() => {
        const rec = recording.delete_topic.find((d) => d.topic === topic && d.confirm === confirm);
        if (!rec || !store.topics.has(topic)) return preview(`deleting ${topic}`);
        if (rec.answer.status === 'ok') {
          store.topics.delete(topic);
          for (const g of rec.answer.data.groups) store.groups.delete(g);
          store.emitChange({ topics: [topic], groups: rec.answer.data.groups, structure: true });
        }
        return copy(rec.answer);
      }),
    ),
    describeGroup: call('describeGroup', (group: string): Result<GroupDetail> =>
      needStore(() => {
        const d = store.describeGroupNow(group);
        return d ? ok(d) : preview(`a group ${JSON.stringify(group)}`);
      }),
    ),
    resetGroup: call('resetGroup', (group: string, request: ResetRequest): Result<ResetPlanDto> =>
      needStore(() => {
        const rec = recording.resets.find((r) => r.group === group && same(r.request, request));
        if (!rec) return preview(`that reset of ${group} (${JSON.stringify(request)})`);
        if (rec.answer.status === 'ok' && rec.after) store.setGroup(group, rec.after);
        return copy(rec.answer);
      }),
    ),
    triggerRound: call('triggerRound', (group: string, windowMs: number): Result<null> =>
      needStore(() => {
        const rec = recording.rounds.find((r) => r.group === group && r.window_ms === windowMs);
        if (!rec) return preview(`a round of ${group} with a window of ${windowMs} ms (recorded: ${recording.rounds.map((r) => `${r.group} ${r.window_ms} ms`).join(', ')})`);
        store.setGroup(group, rec.open);
        store.later(windowMs, () => store.setGroup(group, rec.ended));
        return ok(null);
      }),
    ),
    demoStartMember: call('demoStartMember', (topic: string, group: string, windowMs: number, rate: number, joinLive: boolean): Result<Handle> =>
      needStore(() => refuseBusyGroup(store, group, joinLive) ?? startDemo(store, topic, group, windowMs, rate)),
    ),
    demoStopMember: call('demoStopMember', (handle: Handle, kill: boolean): Result<null> => stopDemo(store, handle, kill)),
    demoMembers: call('demoMembers', (): Result<DemoMember[]> => ok(listDemos(store))),
    lagHistory: call('lagHistory', (group: string, span: HistorySpan): Result<LagHistoryDto> =>
      needStore(() => {
        const rec = recording.lag_histories?.find((h) => h.group === group && h.span === span);
        return rec ? copy(rec.answer) : preview(`the ${span} lag history of ${group}`);
      }),
    ),
    lagCheck: call('lagCheck', (group: string, thresholds: LagAlertThresholds): Result<LagCheckDto> =>
      needStore(() => {
        const set = store.lagChecks.get(group);
        if (set) return copy(set);
        const rec = recording.lag_checks?.find((c) => c.group === group && same(c.thresholds, thresholds));
        return rec ? copy(rec.answer) : preview(`a lag check of ${group} against ${JSON.stringify(thresholds)}`);
      }),
    ),
    exportGroupOffsets: call('exportGroupOffsets', (group: string): Result<string | null> =>
      needStore(() => (store.groups.has(group) ? ok(store.exportPath) : preview(`a group ${JSON.stringify(group)}`))),
    ),
    pickOffsetsFile: call('pickOffsetsFile', (): Result<OffsetsFile | null> => ok(copy(store.offsetsFile))),
    groupDeletePreview: call('groupDeletePreview', (group: string): Result<GroupDeletePreview> =>
      needStore(() => {
        const rec = recording.delete_previews?.[group];
        return rec && store.groups.has(group) ? copy(rec) : preview(`deleting ${group}`);
      }),
    ),
    deleteGroup: call('deleteGroup', (group: string, confirm: string, _membersStopped: boolean): Result<DeletedGroup> =>
      needStore(() => {
        const rec = recording.delete_group?.find((d) => d.group === group && d.confirm === confirm);
        if (!rec || !store.groups.has(group)) return preview(`deleting ${group} (confirmed as ${JSON.stringify(confirm)})`);
        if (rec.answer.status === 'ok') {
          store.groups.delete(group);
          store.emitChange({ topics: [], groups: [group], structure: true });
        }
        return copy(rec.answer);
      }),
    ),
    notify: call('notify', (title: string, body: string): Result<null> => {
      store.notifications.push({ title, body });
      return ok(null);
    }),
    pickSaveFile: call('pickSaveFile', (): Result<string | null> => ok(store.pickFileResult)),
    pickOpenFile: call('pickOpenFile', (): Result<string | null> => ok(store.pickFileResult)),
    exportMessages: call('exportMessages', (request: ExportRequest, onEvent: (e: TransferEvent) => void): Result<TransferId> =>
      needStore(() => {
        // The same request was recorded twice when the first wrote the file and the second was
        // refused for it (target_exists): which one answers depends on the file being there.
        const refused = (x: { events: TransferEvent[] }) => x.events.some((e) => e.event === 'failed' && e.error.code === 'target_exists');
        const there = store.exportedFiles.has(request.path);
        const recs = recording.transfer.exports.filter((x) => same(x.request, request));
        const rec = recs.find((x) => refused(x) === there) ?? recs[0];
        if (!rec) return preview(`exporting to ${request.path} (recorded: ${recording.transfer.exports.map((x) => x.request.path).join(', ')})`);
        if (rec.events.some((e) => e.event === 'done') && request.format !== 'store') store.exportedFiles.add(request.path);
        return store.streamTransfer(rec.events, onEvent);
      }),
    ),
    importFile: call('importFile', (request: ImportRequest, onEvent: (e: TransferEvent) => void): Result<TransferId> =>
      needStore(() => {
        const rec = recording.transfer.imports.find((x) => same(x.request, request));
        if (!rec) return preview(`importing ${request.path} into ${request.topic} with those options`);
        return store.streamTransfer(rec.events, onEvent);
      }),
    ),
    csvColumns: call('csvColumns', (path: string): Result<string[]> => {
      const rec = recording.transfer.csv_columns.find((x) => x.path === path);
      return rec ? copy(rec.answer) : preview(`the columns of ${path}`);
    }),
    copyMessages: call('copyMessages', (request: CopyRequest): Result<TransferId> => preview(`copying ${request.topic} to ${request.target_topic}`)),
    cancelTransfer: call('cancelTransfer', (id: TransferId): Result<null> => {
      const t = store.transfers.get(id);
      if (t) t.cancelled = true;
      return ok(null);
    }),
    topicRetention: call('topicRetention', (topic: string): Result<RetentionDto | null> =>
      needStore(() => {
        if (store.retentionSaved.has(topic)) return ok(copy(store.retentionSaved.get(topic) ?? null));
        const rec = recording.transfer.retention[topic];
        return rec ? copy(rec) : preview(`the retention of ${topic}`);
      }),
    ),
    setRetention: call('setRetention', (topic: string, r: RetentionDto | null): Result<RetentionDto | null> =>
      needStore(() => {
        store.retentionSaved.set(topic, copy(r));
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
        const saved = store.retentionSaved.get(topic) ?? null;
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
    takeRetentionNotices: call('takeRetentionNotices', (): Result<RetentionPlanDto[]> => ok(store.retentionNotices.splice(0))),
    takeRetentionDue: call('takeRetentionDue', (): Result<RetentionPlanDto[]> => needStore(() => ok(store.retentionDue.splice(0)))),
    retentionMode: call('retentionMode', (): Result<RetentionMode> => needStore(() => ok(store.retentionMode))),
    setRetentionMode: call('setRetentionMode', (mode: RetentionMode): Result<RetentionMode> =>
      needStore(() => {
        store.retentionMode = mode;
        store.retentionDue = [];
        return ok(mode);
      }),
    ),
    retentionLog: call('retentionLog', (): Result<RetentionLog> =>
      needStore(() => ok({ path: '/home/you/.local/share/dev.twainmq.desktop/retention-log.jsonl', entries: copy(store.retentionLog) })),
    ),
    checkStore: call('checkStore', (): Result<StoreCheck> => needStore(() => (recording.check ? copy(recording.check) : preview('a check of the store')))),
    storePresence: call('storePresence', (): Result<StorePresence> =>
      needStore(() => ok(store.presence ? copy(store.presence) : { root: store.root, state: 'present', message: '', since: 0 })),
    ),
    onRetentionDue: async (cb): Promise<Unlisten> => {
      store.retentionDueListeners.add(cb);
      return () => store.retentionDueListeners.delete(cb);
    },
    onStorePresence: async (cb): Promise<Unlisten> => {
      store.presenceListeners.add(cb);
      return () => store.presenceListeners.delete(cb);
    },
    onRetentionApplied: async (cb): Promise<Unlisten> => {
      store.retentionListeners.add(cb);
      return () => store.retentionListeners.delete(cb);
    },
    onStoreChanged: async (cb): Promise<Unlisten> => {
      store.changeListeners.add(cb);
      return () => store.changeListeners.delete(cb);
    },
    onDragDrop: async (cb): Promise<Unlisten> => {
      store.dropListeners.add(cb);
      return () => store.dropListeners.delete(cb);
    },
    newWindow: call('newWindow', () => preview('a new window')),
    about: call('about', () => ok(recording.versions)),
    indexCacheInfo: call('indexCacheInfo', () => ok({ path: '/home/you/.cache/dev.twainmq.desktop/line-index', files: 1, bytes: '2048' })),
    clearIndexCache: call('clearIndexCache', () => ok({ path: '/home/you/.cache/dev.twainmq.desktop/line-index', files: 0, bytes: '0' })),
    onMenu: async (cb): Promise<Unlisten> => {
      store.menuListeners.add(cb);
      return () => store.menuListeners.delete(cb);
    },
    viewState: call('viewState', (dark: boolean, checks: MenuChecks): Result<null> => {
      store.viewStates.push({ dark, checks: copy(checks) });
      return ok(null);
    }),
    } satisfies Partial<Commands> & Partial<Backend>;
  // Any command without an answer here says there is no recording of it.
  const unrecorded = Object.fromEntries(
    (Object.keys(commands) as CommandName[]).map((name) => [name, call(name, () => preview(`${name}: nothing recorded`))]),
  ) as unknown as Commands;
  return { ...unrecorded, ...answers, kind: 'mock' };
}
