// Lag alerts, the pure part: thresholds as typed and as stored, and the
// per-group state machine that decides when a desktop notification goes out
// (one when a threshold is crossed, one when it recovers, never a burst).
// The reactive store and the watcher are in alerts.svelte.ts.

import type { LagAlertThresholds, LagCheckDto } from '../backend';
import { counted } from '../shared/format';

/** A group's thresholds as kept in the settings: a count as decimal text (it may pass 2^53), an age in seconds. */
export type AlertThresholds = { maxLag: string | null; maxAgeSecs: number | null };

/** Seconds in `30s`, `10m`, `2h`, `1d`, `1w`, `1h30m` (whole numbers with units); null if it is not one. */
export function parseDuration(text: string): number | null {
  const t = text.trim();
  if (!/^(\d+[smhdw])+$/.test(t)) return null;
  const unit: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  let total = 0;
  for (const [, n, u] of t.matchAll(/(\d+)([smhdw])/g)) total += Number(n) * unit[u];
  // Up to 100 years, as the engine takes.
  return Number.isSafeInteger(total) && total <= 3_155_760_000 ? total : null;
}

/** `90` → `1m30s`: the shortest text parseDuration reads back. */
export function formatDuration(secs: number): string {
  if (secs <= 0) return '0s';
  let rest = Math.round(secs);
  let out = '';
  for (const [u, n] of [['w', 604800], ['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= n) {
      out += `${Math.floor(rest / n)}${u}`;
      rest %= n;
    }
  }
  return out;
}

/** A message count typed by a person: digits only (grouping spaces and commas allowed); null if not one. */
export function parseCount(text: string): string | null {
  const t = text.trim().replace(/[\s,_]/g, '');
  if (!/^\d{1,20}$/.test(t)) return null;
  const n = BigInt(t);
  return n <= 18446744073709551615n ? n.toString() : null;
}

/** Whether thresholds set anything (none: no alert). */
export const hasThreshold = (t: AlertThresholds | null): t is AlertThresholds => !!t && (t.maxLag !== null || t.maxAgeSecs !== null);

/** The thresholds as the backend's lag check takes them. */
export const toRequest = (t: AlertThresholds): LagAlertThresholds => ({ max_lag: t.maxLag, max_age_secs: t.maxAgeSecs });

/** Thresholds read back from storage, or null when what is stored is not thresholds. */
export function fromStored(v: unknown): AlertThresholds | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const maxLag = typeof o.maxLag === 'string' ? parseCount(o.maxLag) : null;
  const maxAgeSecs = typeof o.maxAgeSecs === 'number' && Number.isFinite(o.maxAgeSecs) && o.maxAgeSecs >= 0 ? o.maxAgeSecs : null;
  const t = { maxLag, maxAgeSecs };
  return hasThreshold(t) ? t : null;
}

/** In words, for the sidebar's title and the notification. */
export function describeThresholds(t: AlertThresholds): string {
  const parts: string[] = [];
  if (t.maxLag !== null) parts.push(`lag above ${counted(t.maxLag, 'message')} in a partition`);
  if (t.maxAgeSecs !== null) parts.push(`oldest unconsumed message older than ${formatDuration(t.maxAgeSecs)}`);
  return parts.join(' or ');
}

/** What a check says, in one sentence (which partitions, which threshold). */
export function describeBreach(c: LagCheckDto): string {
  if (c.over.length === 0) return `within the thresholds: lag ${c.total_lag}`;
  const which = c.over.map((b) => `P${b.partition} (${b.over.map((o) => (o === 'max_lag' ? `lag ${b.lag}` : `oldest ${formatDuration(b.age_secs ?? 0)} old`)).join(', ')})`);
  return `over a threshold in ${c.over.length} partition${c.over.length === 1 ? '' : 's'}: ${which.join(', ')}`;
}

/** Least time between two notifications of one group: a lag that flaps is told once per this. */
export const NOTIFY_COOLDOWN_MS = 10_000;

/** One group's alert state: what the last check said and what was last notified. */
export type Tracker = {
  /** By the last check; null before the first. */
  over: boolean | null;
  /** The state the person was last told of (null: never told; a first check within thresholds tells nothing). */
  told: boolean | null;
  /** When the last notification went out (ms). */
  toldAt: number;
};

export const newTracker = (): Tracker => ({ over: null, told: null, toldAt: -Infinity });

/**
 * The next state after a check that says `over` at `nowMs`, and what to
 * notify: `crossed` / `recovered` when the state differs from the one last
 * told and the cooldown has passed since the last notification; a state
 * that flips back within the cooldown is never notified (it is told once
 * the cooldown is over, if it still holds).
 */
export function step(t: Tracker, over: boolean, nowMs: number): { tracker: Tracker; notify: 'crossed' | 'recovered' | null } {
  const tracker = { ...t, over };
  // A group within its thresholds from the start: nothing to say.
  const told = t.told ?? false;
  if (over === told || nowMs - t.toldAt < NOTIFY_COOLDOWN_MS) return { tracker, notify: null };
  return { tracker: { over, told: over, toldAt: nowMs }, notify: over ? 'crossed' : 'recovered' };
}
