// Preferences kept in localStorage: theme (dark, light, system), time zone (UTC, local),
// what opens at launch, and whether a topic opens following its tail.

import type { Tz } from './format';

export type Theme = 'dark' | 'light' | 'system';

const THEME_KEY = 'twainmq.theme';
const TZ_KEY = 'twainmq.tz';
const LAUNCH_KEY = 'twainmq.launch';
const FOLLOW_KEY = 'twainmq.follow';

/** At launch without a store given: the last store opened, or the welcome screen. */
export type Launch = 'last' | 'welcome';

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
  launch = $state<Launch>(load(LAUNCH_KEY) === 'welcome' ? 'welcome' : 'last');
  defaultFollow = $state(load(FOLLOW_KEY) === 'on');

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

  setLaunch(l: Launch): void {
    this.launch = l;
    save(LAUNCH_KEY, l);
  }

  setDefaultFollow(on: boolean): void {
    this.defaultFollow = on;
    save(FOLLOW_KEY, on ? 'on' : 'off');
  }

  toggleTz(): void {
    this.setTz(this.tz === 'utc' ? 'local' : 'utc');
  }
}

export const prefs = new Prefs();
