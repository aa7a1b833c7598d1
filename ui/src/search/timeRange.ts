// The time range that bounds browsing and search: from / to as RFC 3339 text,
// in UTC or local time per the app's toggle, with presets.

import { formatTime, parseTime, type Tz } from '../shared/format';

export type Preset = 'all' | '15m' | '1h' | 'today' | 'yesterday' | '7d' | 'custom';

export const PRESETS: { id: Preset; label: string }[] = [
  { id: 'all', label: 'all time' },
  { id: '15m', label: 'last 15 min' },
  { id: '1h', label: 'last hour' },
  { id: 'today', label: 'today' },
  { id: 'yesterday', label: 'yesterday' },
  { id: '7d', label: 'last 7 days' },
  { id: 'custom', label: 'custom' },
];

/** UNIX seconds; null: open on that side. */
export type Range = { from: number | null; to: number | null };

/** Midnight of the day holding `ms`, in the zone. */
function midnight(ms: number, tz: Tz): number {
  const d = new Date(ms);
  if (tz === 'utc') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** The range of a preset at `nowMs` (today and yesterday by the zone's calendar). */
export function presetRange(p: Preset, nowMs: number, tz: Tz): Range {
  const now = nowMs / 1000;
  switch (p) {
    case '15m':
      return { from: now - 15 * 60, to: null };
    case '1h':
      return { from: now - 3600, to: null };
    case '7d':
      return { from: now - 7 * 86400, to: null };
    case 'today':
      return { from: midnight(nowMs, tz) / 1000, to: null };
    case 'yesterday': {
      const today = midnight(nowMs, tz);
      // A day before today's midnight, by the calendar (23 or 25 hours across a DST change).
      const y = midnight(today - 12 * 3600 * 1000, tz);
      return { from: y / 1000, to: today / 1000 - 0.000001 };
    }
    default:
      return { from: null, to: null };
  }
}

/** RFC 3339 text of a time in the zone: 2026-11-30T00:00:00Z or 2026-11-30T01:00:00+01:00. */
export function rfc3339(unix: number, tz: Tz): string {
  const ms = Math.round(unix * 1000);
  if (tz === 'utc') return new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
  const d = new Date(ms);
  const off = -d.getTimezoneOffset();
  const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
  const frac = d.getMilliseconds() ? `.${pad(d.getMilliseconds(), 3)}` : '';
  const zone = off === 0 ? 'Z' : `${off >= 0 ? '+' : '-'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${frac}${zone}`;
}

/** Read the from / to inputs: empty is open; an error names the side that is not a time. */
export function readRange(from: string, to: string, tz: Tz): { range: Range } | { error: string } {
  const f = from.trim() === '' ? null : parseTime(from, tz);
  const t = to.trim() === '' ? null : parseTime(to, tz);
  const hint = `like 2026-11-30T08:00:00Z or 2026-11-30 08:00 (${tz === 'utc' ? 'UTC' : 'local time'})`;
  if (f === null && from.trim() !== '') return { error: `“from” is not a time: type one ${hint}` };
  if (t === null && to.trim() !== '') return { error: `“to” is not a time: type one ${hint}` };
  if (f !== null && t !== null && t < f) return { error: `“to” (${formatTime(t, tz)}) is before “from” (${formatTime(f, tz)})` };
  return { range: { from: f, to: t } };
}

export const isOpen = (r: Range): boolean => r.from === null && r.to === null;
