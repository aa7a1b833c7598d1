// The one door to the backend. Components import from here only: never from
// bindings.ts or @tauri-apps/api. Tests replace this module with vi.mock.
//
// `?mock` in the address serves recorded answers of the real backend instead
// (mockBackend.ts), in the dev server and the preview build only: in a
// production build `import.meta.env.MODE` is "production", the branch that
// loads the mock is dead code, and the mock and its recording are not in the
// bundle (scripts/check-bundle.sh checks).

import { commands, events } from './bindings';
import type { ErrorDto, SearchEvent, TransferEvent } from './bindings';
import type { Backend, Result } from './api';
import { Channel } from '@tauri-apps/api/core';
import { getCurrentWebview } from '@tauri-apps/api/webview';
import { getCurrentWebviewWindow } from '@tauri-apps/api/webviewWindow';
import { isPermissionGranted, requestPermission, sendNotification } from '@tauri-apps/plugin-notification';

export type * from './api';

/** Whether this build may serve the test backend (`?mock`). */
const MOCK_ALLOWED = import.meta.env.MODE !== 'production';

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

/** A desktop notification through tauri-plugin-notification, asking for the permission once. */
async function notifyDesktop(title: string, body: string): Promise<Result<null>> {
  let granted = await isPermissionGranted();
  if (!granted) granted = (await requestPermission()) === 'granted';
  if (!granted) return { status: 'error', error: { code: 'ipc', message: 'desktop notifications are not allowed for TwainMQ Desktop in the system settings' } };
  sendNotification({ title, body });
  return { status: 'ok', data: null };
}

function channel(onEvent: (e: TransferEvent) => void): Channel<TransferEvent> {
  const c = new Channel<TransferEvent>();
  c.onmessage = onEvent;
  return c;
}

function tauriBackend(): Backend {
  return {
    kind: 'tauri',
    openStore: (path) => guard(() => commands.openStore(path)),
    createStore: (path) => guard(() => commands.createStore(path)),
    launchError: () => guard(() => commands.launchError()),
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
    dropSearch: (id) => guard(() => commands.dropSearch(id)),
    searchRows: (id, from, limit) => guard(() => commands.searchRows(id, from, limit)),
    checkFilter: (expr) => guard(() => commands.checkFilter(expr)),
    topicFields: (topic) => guard(() => commands.topicFields(topic)),
    timelineBefore: (topic, partitions, before, limit) => guard(() => commands.timelineBefore(topic, partitions, before, limit)),
    timelineAfter: (topic, partitions, start, limit) => guard(() => commands.timelineAfter(topic, partitions, start, limit)),
    produce: (topic, key, payload) => guard(() => commands.produce(topic, key, payload)),
    createTopic: (topic) => guard(() => commands.createTopic(topic)),
    topicGroups: (topic) => guard(() => commands.topicGroups(topic)),
    deleteTopic: (topic, confirm) => guard(() => commands.deleteTopic(topic, confirm)),
    describeGroup: (group) => guard(() => commands.describeGroup(group, null)),
    resetGroup: (group, request) => guard(() => commands.resetGroup(group, request)),
    triggerRound: (group, windowMs) => guard(() => commands.triggerRound(group, windowMs)),
    demoStartMember: (topic, group, windowMs, rate, joinLive) => guard(() => commands.demoStartMember(topic, group, windowMs, rate, joinLive)),
    demoStopMember: (handle, kill) => guard(() => commands.demoStopMember(handle, kill)),
    demoMembers: () => guard(() => commands.demoMembers()),
    // This window's events only: each window has its own store.
    onStoreChanged: async (cb) => events.storeChanged(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
    newWindow: (path) => guard(() => commands.newWindow(path)),
    indexCacheInfo: () => guard(() => commands.indexCacheInfo()),
    about: () => guard(() => commands.about()),
    clearIndexCache: () => guard(() => commands.clearIndexCache()),
    onMenu: async (cb) => events.menuAction(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
    viewState: (dark, checks) => guard(() => commands.viewState(dark, checks)),
    lagHistory: (group, span) => guard(() => commands.lagHistory(group, span)),
    lagCheck: (group, thresholds) => guard(() => commands.lagCheck(group, thresholds)),
    exportGroupOffsets: (group) => guard(() => commands.exportGroupOffsets(group)),
    pickOffsetsFile: () => guard(() => commands.pickOffsetsFile()),
    groupDeletePreview: (group) => guard(() => commands.groupDeletePreview(group)),
    deleteGroup: (group, confirm) => guard(() => commands.deleteGroup(group, confirm)),
    notify: (title, body) => guard(() => notifyDesktop(title, body)),
    pickSaveFile: (title, name, exts) => guard(() => commands.pickSaveFile(title, name, exts)),
    pickOpenFile: (title, exts) => guard(() => commands.pickOpenFile(title, exts)),
    exportMessages: (request, onEvent) => guard(() => commands.exportMessages(request, channel(onEvent))),
    importFile: (request, onEvent) => guard(() => commands.importFile(request, channel(onEvent))),
    csvColumns: (path) => guard(() => commands.csvColumns(path)),
    copyMessages: (request, onEvent) => guard(() => commands.copyMessages(request, channel(onEvent))),
    cancelTransfer: (id) => guard(() => commands.cancelTransfer(id)),
    topicRetention: (topic) => guard(() => commands.topicRetention(topic)),
    setRetention: (topic, r) => guard(() => commands.setRetention(topic, r)),
    retentionPreview: (topic, r, force) => guard(() => commands.retentionPreview(topic, r, force)),
    applyRetention: (topic, force) => guard(() => commands.applyRetention(topic, force)),
    purgeTopic: (topic, before, apply, force, confirm) => guard(() => commands.purgeTopic(topic, before, apply, force, confirm)),
    takeRetentionNotices: () => guard(() => commands.takeRetentionNotices()),
    onRetentionApplied: async (cb) => events.retentionApplied(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
    onDragDrop: async (cb) =>
      getCurrentWebview().onDragDropEvent((e) => {
        const p = e.payload;
        cb({ type: p.type, paths: 'paths' in p ? p.paths : [] });
      }),
  };
}

function missingBackend(): Backend {
  const error: ErrorDto = {
    code: 'no_backend',
    message: MOCK_ALLOWED
      ? 'the TwainMQ backend is not reachable: run TwainMQ Desktop, or add ?mock to the address for recorded demo data'
      : 'the TwainMQ backend is not reachable: run TwainMQ Desktop',
  };
  const no = async <T>(): Promise<Result<T>> => ({ status: 'error', error });
  return {
    kind: 'none',
    openStore: no,
    createStore: no,
    launchError: async () => ({ status: 'ok', data: null }),
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
    dropSearch: no,
    searchRows: no,
    checkFilter: no,
    topicFields: no,
    timelineBefore: no,
    timelineAfter: no,
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
    lagHistory: no,
    lagCheck: no,
    exportGroupOffsets: no,
    pickOffsetsFile: no,
    groupDeletePreview: no,
    deleteGroup: no,
    notify: no,
    pickSaveFile: no,
    pickOpenFile: no,
    exportMessages: no,
    importFile: no,
    csvColumns: no,
    copyMessages: no,
    cancelTransfer: no,
    topicRetention: no,
    setRetention: no,
    retentionPreview: no,
    applyRetention: no,
    purgeTopic: no,
    takeRetentionNotices: async () => ({ status: 'ok', data: [] }),
    onRetentionApplied: async () => () => {},
    onStoreChanged: async () => () => {},
    onDragDrop: async () => () => {},
    newWindow: no,
    indexCacheInfo: no,
    about: no,
    clearIndexCache: no,
    onMenu: async () => () => {},
    viewState: async () => ({ status: 'ok', data: null }),
  };
}

const params = new URLSearchParams(typeof location === 'undefined' ? '' : location.search);
const inTauri = typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;

/** `tauri`, `mock` (recorded answers), or `none` (a plain browser). Known before the backend loads. */
export const backendKind: Backend['kind'] = MOCK_ALLOWED && params.has('mock') ? 'mock' : inTauri ? 'tauri' : 'none';

async function load(): Promise<Backend> {
  if (MOCK_ALLOWED && backendKind === 'mock') {
    const m = await import('./mockBackend');
    return m.createMockBackend(m.mockOptionsFromUrl(params));
  }
  return inTauri ? tauriBackend() : missingBackend();
}

const ready: Promise<Backend> = load();

type Methods = Omit<Backend, 'kind'>;

/** A method of the backend once it has loaded (at once for Tauri; the mock is imported first). */
function method<K extends keyof Methods>(name: K): Methods[K] {
  const call = (...args: unknown[]) => ready.then((b) => (b[name] as (...a: unknown[]) => unknown)(...args));
  return call as unknown as Methods[K];
}

export const openStore = method('openStore');
export const createStore = method('createStore');
export const launchError = method('launchError');
export const pickFolder = method('pickFolder');
export const recentStores = method('recentStores');
export const openDemoStore = method('openDemoStore');
export const storeInfo = method('storeInfo');
export const closeStore = method('closeStore');
export const rawLine = method('rawLine');
export const describeTopic = method('describeTopic');
export const readPage = method('readPage');
export const offsetAtTime = method('offsetAtTime');
export const search = method('search');
export const cancelSearch = method('cancelSearch');
export const dropSearch = method('dropSearch');
export const searchRows = method('searchRows');
export const checkFilter = method('checkFilter');
export const topicFields = method('topicFields');
export const timelineBefore = method('timelineBefore');
export const timelineAfter = method('timelineAfter');
export const produce = method('produce');
export const createTopic = method('createTopic');
export const topicGroups = method('topicGroups');
export const deleteTopic = method('deleteTopic');
export const describeGroup = method('describeGroup');
export const resetGroup = method('resetGroup');
export const triggerRound = method('triggerRound');
export const demoStartMember = method('demoStartMember');
export const demoStopMember = method('demoStopMember');
export const demoMembers = method('demoMembers');
export const lagHistory = method('lagHistory');
export const lagCheck = method('lagCheck');
export const exportGroupOffsets = method('exportGroupOffsets');
export const pickOffsetsFile = method('pickOffsetsFile');
export const groupDeletePreview = method('groupDeletePreview');
export const deleteGroup = method('deleteGroup');
export const notify = method('notify');
export const pickSaveFile = method('pickSaveFile');
export const pickOpenFile = method('pickOpenFile');
export const exportMessages = method('exportMessages');
export const importFile = method('importFile');
export const csvColumns = method('csvColumns');
export const copyMessages = method('copyMessages');
export const cancelTransfer = method('cancelTransfer');
export const topicRetention = method('topicRetention');
export const setRetention = method('setRetention');
export const retentionPreview = method('retentionPreview');
export const applyRetention = method('applyRetention');
export const purgeTopic = method('purgeTopic');
export const takeRetentionNotices = method('takeRetentionNotices');
export const onRetentionApplied = method('onRetentionApplied');
export const onStoreChanged = method('onStoreChanged');
export const onDragDrop = method('onDragDrop');
export const newWindow = method('newWindow');
export const onMenu = method('onMenu');
export const viewState = method('viewState');
export const indexCacheInfo = method('indexCacheInfo');
export const clearIndexCache = method('clearIndexCache');
export const about = method('about');
