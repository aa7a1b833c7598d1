// What the UI asks of a backend, and the shapes it answers in: the real one
// (index.ts, over Tauri) and the test double (mock.ts) both implement it, so
// neither imports the other. The commands come from the generated bindings:
// a command added in Rust is callable here once `make bindings` has run, with
// no line written for it.

import type { Channel } from '@tauri-apps/api/core';
import type { commands, ErrorDto, MenuAction, RetentionApplied, RetentionDue, StoreChanged, StorePresence } from './bindings';

// Every type the backend speaks in, for components (they import nothing from bindings.ts).
export type * from './bindings';

export type Result<T> = { status: 'ok'; data: T } | { status: 'error'; error: ErrorDto };

/** A folder dragged over or dropped on the window. */
export type DragDrop = { type: 'enter' | 'over' | 'drop' | 'leave'; paths: string[] };

export type Unlisten = () => void;

/** A generated command's arguments as the UI passes them: a channel is a callback of its events. */
type UiArgs<A extends unknown[]> = { [K in keyof A]: A[K] extends Channel<infer E> ? (event: E) => void : A[K] };

/** Every command of the backend, as the bindings declare it (see there what each does). */
export type Commands = {
  [K in keyof typeof commands]: (typeof commands)[K] extends (...args: infer A) => Promise<infer R> ? (...args: UiArgs<A>) => Promise<R> : never;
};

/** The name of a command. */
export type CommandName = keyof Commands;

/** What the UI asks of the backend besides its commands. */
export interface Extras {
  /** `tauri`, `mock`, or `none` (a plain browser without `?mock`). */
  kind: 'tauri' | 'mock' | 'none';
  /** Show a desktop notification (lag alerts); an error when notifications are not allowed. */
  notify(title: string, body: string): Promise<Result<null>>;
  /** Told when the app's own retention run removed something (then take the notices). */
  onRetentionApplied(cb: (r: RetentionApplied) => void): Promise<Unlisten>;
  /** Told when retention is due in a store set to ask (then take what is due). */
  onRetentionDue(cb: (r: RetentionDue) => void): Promise<Unlisten>;
  /** Told when the open store's folder goes, cannot be reached, or comes back. */
  onStorePresence(cb: (p: StorePresence) => void): Promise<Unlisten>;
  /** Store changes pushed by the file watcher. */
  onStoreChanged(cb: (c: StoreChanged) => void): Promise<Unlisten>;
  /** Folders dragged onto the window. */
  onDragDrop(cb: (d: DragDrop) => void): Promise<Unlisten>;
  /** Items chosen in the native menu bar, for this window. */
  onMenu(cb: (a: MenuAction) => void): Promise<Unlisten>;
}

/** Everything the UI asks of the backend. */
export type Backend = Commands & Extras;
