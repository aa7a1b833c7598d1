// The one door to the backend. Components import `backend` (and the types) from
// here only: never from bindings.ts or @tauri-apps/api. Tests replace this
// module with vi.mock. Every command of the generated bindings is a method of
// `backend`, with the same arguments (a channel is a callback), resolving to
// `{status:'ok',data} | {status:'error',error}`: nothing is written here per command.
//
// `?mock` in the address serves recorded answers of the real backend instead
// (mock.ts), in the dev server and the preview build only: in a production
// build `import.meta.env.MODE` is "production", the branch that loads the mock
// is dead code, and the mock and its recording are not in the bundle
// (scripts/check-bundle.sh checks).

import { commands, events } from './bindings';
import type { ErrorDto } from './bindings';
import type { Backend, CommandName, Commands, Result } from './api';
import { Channel } from '@tauri-apps/api/core';
import { getCurrentWebview } from '@tauri-apps/api/webview';
import { getCurrentWebviewWindow } from '@tauri-apps/api/webviewWindow';
import { isPermissionGranted, requestPermission, sendNotification } from '@tauri-apps/plugin-notification';

export type * from './api';

/** Whether this build may serve the test backend (`?mock`). */
const MOCK_ALLOWED = import.meta.env.MODE !== 'production';

/** The names of the backend's commands, from the bindings. */
export const COMMAND_NAMES = Object.keys(commands) as CommandName[];

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

/** A callback argument as the channel Tauri streams its events on. */
function channelOf(arg: unknown): unknown {
  if (typeof arg !== 'function') return arg;
  const c = new Channel<unknown>();
  c.onmessage = arg as (e: unknown) => void;
  return c;
}

/** Each command of the bindings, its callbacks made channels and its failures results. */
function tauriCommands(): Commands {
  const call = (name: CommandName) => {
    const f = commands[name] as (...args: unknown[]) => Promise<Result<unknown>>;
    return (...args: unknown[]) => guard(() => f(...args.map(channelOf)));
  };
  return Object.fromEntries(COMMAND_NAMES.map((name) => [name, call(name)])) as unknown as Commands;
}

function tauriBackend(): Backend {
  return {
    ...tauriCommands(),
    kind: 'tauri',
    notify: (title, body) => guard(() => notifyDesktop(title, body)),
    // This window's events only: each window has its own store.
    onStoreChanged: async (cb) => events.storeChanged(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
    onMenu: async (cb) => events.menuAction(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
    onRetentionApplied: async (cb) => events.retentionApplied(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
    onRetentionDue: async (cb) => events.retentionDue(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
    onStorePresence: async (cb) => events.storePresence(getCurrentWebviewWindow()).listen((e) => cb(e.payload)),
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
  const nothing = async () => () => {};
  return {
    ...(Object.fromEntries(COMMAND_NAMES.map((name) => [name, no])) as unknown as Commands),
    kind: 'none',
    // What a plain browser's welcome screen asks: answered as an app with nothing to say.
    launchError: async () => ({ status: 'ok', data: null }),
    recentStores: async () => ({ status: 'ok', data: [] }),
    takeRetentionNotices: async () => ({ status: 'ok', data: [] }),
    takeRetentionDue: async () => ({ status: 'ok', data: [] }),
    viewState: async () => ({ status: 'ok', data: null }),
    notify: no,
    onRetentionApplied: nothing,
    onRetentionDue: nothing,
    onStorePresence: nothing,
    onStoreChanged: nothing,
    onDragDrop: nothing,
    onMenu: nothing,
  };
}

const params = new URLSearchParams(typeof location === 'undefined' ? '' : location.search);
const inTauri = typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;

/** `tauri`, `mock` (recorded answers), or `none` (a plain browser). Known before the backend loads. */
export const backendKind: Backend['kind'] = MOCK_ALLOWED && params.has('mock') ? 'mock' : inTauri ? 'tauri' : 'none';

async function load(): Promise<Backend> {
  if (MOCK_ALLOWED && backendKind === 'mock') {
    const m = await import('./mock');
    return m.createMockBackend(m.mockOptionsFromUrl(params));
  }
  return inTauri ? tauriBackend() : missingBackend();
}

const ready: Promise<Backend> = load();

/** The backend's methods, callable at once (for the mock, each call waits for it to load). */
export const backend: Omit<Backend, 'kind'> = new Proxy({} as Omit<Backend, 'kind'>, {
  get: (_, name) =>
    // Not a thenable, and no symbol is a method.
    typeof name !== 'string' || name === 'then'
      ? undefined
      : (...args: unknown[]) => ready.then((b) => (b[name as keyof Omit<Backend, 'kind'>] as (...a: unknown[]) => unknown)(...args)),
});
