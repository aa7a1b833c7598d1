// Preferences kept in localStorage: theme (dark, light, system), time zone (UTC, local),
// what opens at launch, and whether a topic opens following its tail.

import type { Tz } from '../shared/format';

export type Theme = 'dark' | 'light' | 'system';

const THEME_KEY = 'twainmq.theme';
const TZ_KEY = 'twainmq.tz';
const LAUNCH_KEY = 'twainmq.launch';
const FOLLOW_KEY = 'twainmq.follow';
const LAUNCH_STORE_KEY = 'twainmq.launchStore';
const SIDEBAR_KEY = 'twainmq.sidebar';

/** At launch without a store given: the last store opened, one chosen store, or the welcome screen. */
export type Launch = 'last' | 'store' | 'welcome';

function load(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function save(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode: keep it for this session only */
  }
}

class Prefs {
  theme = $state<Theme>((['dark', 'light', 'system'] as const).find((t) => t === load(THEME_KEY)) ?? 'system');
  tz = $state<Tz>(load(TZ_KEY) === 'local' ? 'local' : 'utc');
  systemDark = $state(true);
  launch = $state<Launch>((['welcome', 'store'] as const).find((l) => l === load(LAUNCH_KEY)) ?? 'last');
  /** The store opened at launch when `launch` is 'store'. */
  launchStore = $state<string | null>(load(LAUNCH_STORE_KEY));
  defaultFollow = $state(load(FOLLOW_KEY) === 'on');
  /** The sidebar folded to a thin strip (a small window gives its room to the messages). */
  sidebarCollapsed = $state(load(SIDEBAR_KEY) === 'collapsed');

  constructor() {
    if (typeof matchMedia !== 'undefined') {
      const mq = matchMedia('(prefers-color-scheme: dark)');
      this.systemDark = mq.matches;
      mq.addEventListener?.('change', (e) => (this.systemDark = e.matches));
    }
  }

  /** The theme in force. */
  get effectiveTheme(): 'dark' | 'light' {
    return this.theme === 'system' ? (this.systemDark ? 'dark' : 'light') : this.theme;
  }

  setTheme(t: Theme): void {
    this.theme = t;
    save(THEME_KEY, t);
  }

  cycleTheme(): void {
    this.setTheme(this.theme === 'dark' ? 'light' : this.theme === 'light' ? 'system' : 'dark');
  }

  setTz(tz: Tz): void {
    this.tz = tz;
    save(TZ_KEY, tz);
  }

  /** `store`: the store for 'store' (kept when another choice is made, for coming back to it). */
  setLaunch(l: Launch, store: string | null = null): void {
    this.launch = l;
    save(LAUNCH_KEY, l);
    if (store !== null) {
      this.launchStore = store;
      save(LAUNCH_STORE_KEY, store);
    }
  }

  setDefaultFollow(on: boolean): void {
    this.defaultFollow = on;
    save(FOLLOW_KEY, on ? 'on' : 'off');
  }

  setSidebarCollapsed(collapsed: boolean): void {
    this.sidebarCollapsed = collapsed;
    save(SIDEBAR_KEY, collapsed ? 'collapsed' : 'shown');
  }

  toggleTz(): void {
    this.setTz(this.tz === 'utc' ? 'local' : 'utc');
  }
}

export const prefs = new Prefs();
