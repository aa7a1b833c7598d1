// The app's actions, one place for the native menu bar and the keyboard: a
// menu item sends its id (backend.onMenu), a key press matching the item's
// accelerator (MENU_ACCELERATORS, from the Rust menu definition) runs the same
// id here. Actions on the open topic's messages go to the handlers its
// Messages tab registers while it is shown.

import { MENU_ACCELERATORS } from '../backend/limits';
import type { MenuId } from '../backend/api';
import { app } from './app.svelte';
import { prefs } from './prefs.svelte';

/** What the Messages tab of the topic on screen does for the menu. */
export type TopicHandlers = {
  find(): void;
  jumpOffset(): void;
  jumpTime(): void;
  toggleFollow(): void;
  toggleDetail(): void;
  /** Copy the selected message's text; false when none is selected. */
  copyMessage(): Promise<boolean>;
  copyJson(): Promise<boolean>;
  /** Copy the raw lines of the rows picked, else of the selected row; how many (0: none, or the clipboard refused). */
  copyRawLine(): Promise<number>;
  exportSelection?(): void;
};

export type Overlay = null | 'shortcuts' | 'about' | 'settings';

/** Whether the platform's command key is Cmd (macOS) rather than Ctrl. */
export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** An accelerator in Tauri's syntax (`CmdOrCtrl+Shift+G`) as the platform writes it. */
export function accelLabel(accel: string, mac = isMac): string {
  const parts = accel.split('+').map((p) => {
    if (p === 'CmdOrCtrl') return mac ? '⌘' : 'Ctrl';
    if (p === 'Shift') return mac ? '⇧' : 'Shift';
    if (p === 'Alt') return mac ? '⌥' : 'Alt';
    if (p === 'Comma') return ',';
    return p;
  });
  return parts.join(mac ? '' : '+');
}

/** Whether a key press is the accelerator (exactly its modifiers). */
export function accelMatches(accel: string, e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>, mac = isMac): boolean {
  const parts = accel.split('+');
  const key = parts[parts.length - 1];
  const mods = new Set(parts.slice(0, -1));
  const cmd = mac ? e.metaKey : e.ctrlKey;
  const other = mac ? e.ctrlKey : e.metaKey;
  if (mods.has('CmdOrCtrl') !== cmd || other) return false;
  if (mods.has('Shift') !== e.shiftKey || mods.has('Alt') !== e.altKey) return false;
  const pressed = e.key.length === 1 ? e.key.toUpperCase() : e.key;
  if (key === 'Comma') return e.key === ',' || e.key === '<';
  return pressed === key.toUpperCase() || pressed === key;
}

/** The menu item whose accelerator a key press is, if any. */
export function actionForKey(e: KeyboardEvent, mac = isMac): MenuId | null {
  for (const [id, accel] of Object.entries(MENU_ACCELERATORS)) {
    if (accelMatches(accel, e, mac)) return id as MenuId;
  }
  return null;
}

/** The shortcuts overlay's table: the menu's accelerators and the UI's own keys. */
export type ShortcutGroup = { title: string; keys: { keys: string; what: string }[] };

const ACTION_NAMES: Record<MenuId, string> = {
  'open-store': 'Open a store',
  'open-recent': 'Open a recent store',
  'connect-kafka': 'Connect to a Kafka cluster',
  'new-topic': 'New topic',
  import: 'Import messages into the topic',
  export: 'Export the topic or the selection',
  settings: 'Settings',
  'copy-message': 'Copy the selected message',
  'copy-json': 'Copy the selected message as JSON',
  'copy-raw-line': 'Copy the raw line as stored (of the rows picked, if any)',
  find: 'Find in the topic',
  theme: 'Switch theme (dark, light, system)',
  'time-zone': 'UTC or local time',
  'follow-tail': 'Follow the tail',
  'detail-pane': 'Show or hide the detail pane',
  'topic-list': 'Go to the topic list',
  'jump-offset': 'Jump to an offset',
  'jump-time': 'Jump to a time',
  shortcuts: 'Keyboard shortcuts',
  about: 'About TwainMQ Desktop',
};

export function shortcutGroups(mac = isMac): ShortcutGroup[] {
  const menu = Object.entries(MENU_ACCELERATORS).map(([id, accel]) => ({ keys: accelLabel(accel, mac), what: ACTION_NAMES[id as MenuId] }));
  return [
    { title: 'Menu', keys: [...menu, { keys: accelLabel('CmdOrCtrl+N', mac), what: 'New window' }, { keys: accelLabel('CmdOrCtrl+W', mac), what: 'Close the window' }] },
    {
      title: 'Messages',
      keys: [
        { keys: '/', what: 'Search (text, /regex/, key:K or a CEL filter)' },
        { keys: 'G', what: 'Go to an offset' },
        { keys: 'F', what: 'Follow the tail' },
        { keys: 'J / K, ↓ / ↑', what: 'Next / previous message' },
        { keys: 'PgDn / PgUp, Home / End', what: 'Page, first, newest' },
        { keys: 'Enter', what: 'Open the selected message' },
        { keys: 'Esc', what: 'Close the detail, clear or cancel the search' },
      ],
    },
    {
      title: 'Topic list',
      keys: [
        { keys: '↑ / ↓', what: 'Previous / next topic' },
        { keys: 'Type a name', what: 'Jump to the first topic starting with it' },
      ],
    },
    { title: 'Anywhere', keys: [{ keys: '?', what: 'This list' }] },
  ];
}

class Actions {
  overlay = $state<Overlay>(null);
  /** The Messages tab on screen: whether it follows the tail and shows the detail pane (the View menu's marks). */
  topicChecks = $state<{ follow: boolean; detail: boolean } | null>(null);
  topic: TopicHandlers | null = null;
  /** Opens the import dialog of the topic on screen (its view registers it). */
  importer: (() => void) | null = null;

  /** The Messages tab on screen registers its handlers; returns the unregister. */
  registerTopic(h: TopicHandlers): () => void {
    this.topic = h;
    return () => {
      if (this.topic === h) this.topic = null;
    };
  }

  /** The topic view on screen registers its import dialog; returns the unregister. */
  registerImport(open: () => void): () => void {
    this.importer = open;
    return () => {
      if (this.importer === open) this.importer = null;
    };
  }

  private onTopic(what: string, f: (h: TopicHandlers) => void): void {
    if (this.topic) f(this.topic);
    else app.say(`${what}: open a topic's Messages tab first`, true);
  }

  private async copy(f: (h: TopicHandlers) => Promise<boolean>, what: string): Promise<void> {
    if (!this.topic) return app.say(`${what}: open a topic's Messages tab first`, true);
    if (!(await f(this.topic))) app.say(`${what}: select a message first (or the clipboard refused)`, true);
    else app.say(`Copied the message${what.includes('JSON') ? ' as JSON' : ''}`);
  }

  private async copyRaw(): Promise<void> {
    if (!this.topic) return app.say('Copy raw line: open a topic\'s Messages tab first', true);
    const n = await this.topic.copyRawLine();
    if (n === 0) app.say('Copy raw line: select a message first (or the clipboard refused)', true);
    else app.say(n === 1 ? 'Copied the raw line' : `Copied ${n} raw lines`);
  }

  run(id: MenuId, path: string | null = null): void {
    switch (id) {
      case 'open-store':
        return void app.openFolder();
      case 'open-recent':
        if (path) void app.openPath(path);
        return;
      case 'new-topic':
        if (app.info) app.dialog = 'create';
        else app.say('New topic: open a store first', true);
        return;
      case 'import':
        if (this.importer) this.importer();
        else app.say('Import: open the topic to import into first', true);
        return;
      case 'export':
        return this.onTopic('Export', (h) => (h.exportSelection ? h.exportSelection() : app.say('Export: not available here', true)));
      case 'settings':
        this.overlay = 'settings';
        return;
      case 'copy-message':
        return void this.copy((h) => h.copyMessage(), 'Copy');
      case 'copy-json':
        return void this.copy((h) => h.copyJson(), 'Copy as JSON');
      case 'copy-raw-line':
        return void this.copyRaw();
      case 'find':
        return this.onTopic('Find', (h) => h.find());
      case 'theme':
        prefs.cycleTheme();
        return app.say(`Theme: ${prefs.theme}`);
      case 'time-zone':
        prefs.toggleTz();
        return app.say(`Times in ${prefs.tz === 'utc' ? 'UTC' : 'local time'}`);
      case 'follow-tail':
        return this.onTopic('Follow', (h) => h.toggleFollow());
      case 'detail-pane':
        return this.onTopic('Detail pane', (h) => h.toggleDetail());
      case 'topic-list': {
        const list = document.querySelector<HTMLElement>('[data-testid="topic-list"]');
        const current = list?.querySelector<HTMLElement>('[aria-selected="true"]') ?? list?.querySelector<HTMLElement>('[role="option"]');
        (current ?? list)?.focus();
        return;
      }
      case 'jump-offset':
        return this.onTopic('Jump to offset', (h) => h.jumpOffset());
      case 'jump-time':
        return this.onTopic('Jump to time', (h) => h.jumpTime());
      case 'shortcuts':
        this.overlay = this.overlay === 'shortcuts' ? null : 'shortcuts';
        return;
      case 'about':
        this.overlay = 'about';
        return;
    }
  }

  /** The window's key handler: accelerators anywhere, `?` outside text fields. */
  onKey(e: KeyboardEvent): void {
    if (e.defaultPrevented) return;
    const id = actionForKey(e);
    if (id) {
      e.preventDefault();
      this.run(id);
      return;
    }
    const t = e.target as HTMLElement | null;
    const typing = !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
    if (e.key === '?' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      this.run('shortcuts');
    }
  }
}

export const actions = new Actions();
