// Lag alerts: per-group thresholds kept in localStorage (per store folder),
// checked by the backend while the store is open (on store changes and every
// CHECK_MS), a badge state per group, a desktop notification when a group
// crosses a threshold and when it recovers, and a history of the alerts sent.
//
// The API a Settings screen uses: `lagAlerts.thresholds(group)`,
// `lagAlerts.set(group, t)`, `lagAlerts.clear(group)`, `lagAlerts.configured()`
// (all of the open store), and `lagAlerts.history`.

import { untrack } from 'svelte';
import { backend } from '../backend';
import type { LagCheckDto } from '../backend';
import { app } from '../app/app.svelte';
import { describeBreach, describeThresholds, fromStored, hasThreshold, newTracker, step, toRequest, type AlertThresholds, type Tracker } from './lagAlerts';

const KEY = 'twainmq.lagAlerts';
/** How often thresholds are checked without a store change (ages grow with no write). */
export const CHECK_MS = 15_000;
/** Alerts kept in the history. */
const MAX_HISTORY = 200;

/** One alert that went out (or could not). */
export type AlertEvent = {
  id: number;
  /** ms */
  at: number;
  group: string;
  kind: 'crossed' | 'recovered';
  text: string;
  /** `sent`, or why the desktop notification could not be shown. */
  notified: string;
};

type Stored = Record<string, Record<string, AlertThresholds>>;

function loadAll(): Stored {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) ?? '{}') as unknown;
    if (!raw || typeof raw !== 'object') return {};
    const out: Stored = {};
    for (const [root, groups] of Object.entries(raw as Record<string, unknown>)) {
      if (!groups || typeof groups !== 'object') continue;
      for (const [g, v] of Object.entries(groups as Record<string, unknown>)) {
        const t = fromStored(v);
        if (t) (out[root] ??= {})[g] = t;
      }
    }
    return out;
  } catch {
    return {};
  }
}

class LagAlerts {
  /** Store folder → group → thresholds. */
  private all = $state<Stored>(loadAll());
  /** The latest check of each group with thresholds (open store). */
  checks = $state<Record<string, LagCheckDto>>({});
  /** Why a group's last check failed. */
  errors = $state<Record<string, string>>({});
  /** Alerts sent, newest first. */
  history = $state<AlertEvent[]>([]);
  private trackers = new Map<string, Tracker>();
  private nextId = 1;
  private running = false;
  private again = false;

  private get root(): string | null {
    return app.info?.root ?? null;
  }

  private save(): void {
    try {
      localStorage.setItem(KEY, JSON.stringify(this.all));
    } catch {
      /* private mode: kept for this session */
    }
  }

  /** A group's thresholds in the open store (null: no alert). */
  thresholds(group: string): AlertThresholds | null {
    const r = this.root;
    return r === null ? null : (this.all[r]?.[group] ?? null);
  }

  /** Every group of the open store with thresholds. */
  configured(): Record<string, AlertThresholds> {
    const r = this.root;
    return r === null ? {} : { ...(this.all[r] ?? {}) };
  }

  /** Set a group's thresholds (none set: the alert is removed) and check it at once. */
  set(group: string, t: AlertThresholds | null): void {
    const r = this.root;
    if (r === null) return;
    const mine = { ...(this.all[r] ?? {}) };
    if (hasThreshold(t)) mine[group] = { ...t };
    else delete mine[group];
    this.all = { ...this.all, [r]: mine };
    this.trackers.delete(group);
    if (!hasThreshold(t)) {
      const { [group]: _c, ...checks } = this.checks;
      const { [group]: _e, ...errors } = this.errors;
      this.checks = checks;
      this.errors = errors;
    }
    this.save();
    void this.checkAll();
  }

  clear(group: string): void {
    this.set(group, null);
  }

  /** Whether a group is over its thresholds by its last check. */
  isOver(group: string): boolean {
    return hasThreshold(this.thresholds(group)) && (this.checks[group]?.over.length ?? 0) > 0;
  }

  /** A group's alerts, newest first. */
  events(group: string): AlertEvent[] {
    return this.history.filter((e) => e.group === group);
  }

  /** Check every configured group of the open store (a check asked for while one runs runs after it). */
  async checkAll(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        const groups = Object.entries(this.configured()).filter(([g]) => app.info?.groups.some((x) => x.name === g));
        for (const [g, t] of groups) await this.checkOne(g, t);
      } while (this.again);
    } finally {
      this.running = false;
    }
  }

  private async checkOne(group: string, t: AlertThresholds): Promise<void> {
    const r = await backend.lagCheck(group, toRequest(t));
    if (r.status === 'error') {
      this.errors = { ...this.errors, [group]: r.error.message };
      return;
    }
    // Thresholds changed while the check ran: its answer is for the old ones.
    if (JSON.stringify(this.thresholds(group)) !== JSON.stringify(t)) return;
    const { [group]: _e, ...errors } = this.errors;
    this.errors = errors;
    this.checks = { ...this.checks, [group]: r.data };
    const { tracker, notify } = step(this.trackers.get(group) ?? newTracker(), r.data.over.length > 0, Date.now());
    this.trackers.set(group, tracker);
    if (notify) await this.tell(group, notify, t, r.data);
  }

  private async tell(group: string, kind: 'crossed' | 'recovered', t: AlertThresholds, c: LagCheckDto): Promise<void> {
    const title = kind === 'crossed' ? `Group ${group} is lagging` : `Group ${group} caught up`;
    const text = kind === 'crossed' ? `${describeBreach(c)} (alert: ${describeThresholds(t)})` : `back within the thresholds (${describeThresholds(t)}): lag ${c.total_lag}`;
    const sent = await backend.notify(title, text);
    const ev: AlertEvent = { id: this.nextId++, at: Date.now(), group, kind, text, notified: sent.status === 'ok' ? 'sent' : sent.error.message };
    this.history = [ev, ...this.history].slice(0, MAX_HISTORY);
  }

  /** Forget checks and trackers (the store closed or another opened). */
  reset(): void {
    this.checks = {};
    this.errors = {};
    this.trackers.clear();
  }
}

export const lagAlerts = new LagAlerts();

/**
 * Run the checks while a store is open: on every store change reported for a
 * group or a topic, and every CHECK_MS. Call inside a component (an effect);
 * returns the cleanup.
 */
export function watchLagAlerts(): () => void {
  let root: string | null = null;
  const stop = $effect.root(() => {
    $effect(() => {
      const r = app.info?.root ?? null;
      // Reading the sequences makes every reported change a reason to check.
      void JSON.stringify(app.groupSeq);
      void JSON.stringify(app.topicSeq);
      if (r !== root) {
        root = r;
        lagAlerts.reset();
      }
      if (r !== null) untrack(() => void lagAlerts.checkAll());
    });
  });
  const timer = setInterval(() => {
    if (app.info) void lagAlerts.checkAll();
  }, CHECK_MS);
  return () => {
    clearInterval(timer);
    stop();
  };
}
