// Formatting: counts and offsets from decimal strings (BigInt, never Number),
// sizes, times in UTC or local, payload previews and hex dumps.

import type { Row } from '../backend';

/** 1234567 → "1,234,567" (exact for any size). */
export function groupDigits(dec: string | bigint): string {
  const s = typeof dec === 'bigint' ? dec.toString() : dec;
  if (!/^\d+$/.test(s)) return s;
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `1 topic`, `2 topics`, `1,000 topics`: a count with its noun, singular for exactly one. */
export function counted(n: number | bigint | string, one: string, many = `${one}s`): string {
  const b = BigInt(n);
  return `${groupDigits(b)} ${b === 1n ? one : many}`;
}

/** 1234567 → "1.2 M" for badges; exact below 10,000. */
export function compactCount(dec: string | bigint): string {
  let v: bigint;
  try {
    v = typeof dec === 'bigint' ? dec : BigInt(dec);
  } catch {
    return String(dec);
  }
  if (v < 10000n) return groupDigits(v);
  const units: [bigint, string][] = [
    [1_000_000_000_000n, 'T'],
    [1_000_000_000n, 'G'],
    [1_000_000n, 'M'],
    [1_000n, 'k'],
  ];
  for (const [u, name] of units) {
    if (v >= u) {
      const tenths = (v * 10n) / u;
      const whole = tenths / 10n;
      return whole >= 100n ? `${whole} ${name}` : `${whole}.${tenths % 10n} ${name}`;
    }
  }
  return v.toString();
}

/** Bytes (decimal string) → "41.0 KB". */
export function formatBytes(dec: string | bigint | number): string {
  let v: bigint;
  try {
    v = typeof dec === 'bigint' ? dec : BigInt(dec);
  } catch {
    return String(dec);
  }
  if (v < 1024n) return `${v} B`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  let u = 1024n;
  let i = 0;
  while (i < units.length - 1 && v >= u * 1024n) {
    u *= 1024n;
    i++;
  }
  const tenths = (v * 10n) / u;
  return `${tenths / 10n}.${tenths % 10n} ${units[i]}`;
}

/** "3 s ago", "5 min ago", "2 h ago", "4 d ago". */
export function relativeTime(unixSeconds: number | null, nowMs: number): string {
  if (unixSeconds === null || !Number.isFinite(unixSeconds)) return 'never';
  const d = nowMs / 1000 - unixSeconds;
  if (d < -5) return 'in the future';
  if (d < 5) return 'just now';
  if (d < 60) return `${Math.floor(d)} s ago`;
  if (d < 3600) return `${Math.floor(d / 60)} min ago`;
  if (d < 86400 * 2) return `${Math.floor(d / 3600)} h ago`;
  if (d < 86400 * 60) return `${Math.floor(d / 86400)} d ago`;
  return `${Math.floor(d / 86400 / 30)} mo ago`;
}

export type Tz = 'utc' | 'local';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function parts(unixSeconds: number, tz: Tz) {
  const d = new Date(Math.floor(unixSeconds * 1000));
  const ms = Math.floor(unixSeconds * 1000) - Math.floor(unixSeconds) * 1000;
  return tz === 'utc'
    ? { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, da: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds(), ms }
    : { y: d.getFullYear(), mo: d.getMonth() + 1, da: d.getDate(), h: d.getHours(), mi: d.getMinutes(), s: d.getSeconds(), ms };
}

/** "2026-11-29 21:30:02.123" (no zone suffix; the toolbar says which). */
export function formatTime(unixSeconds: number | null, tz: Tz): string {
  if (unixSeconds === null || !Number.isFinite(unixSeconds)) return '—';
  const p = parts(unixSeconds, tz);
  return `${p.y}-${pad(p.mo)}-${pad(p.da)} ${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}.${pad(p.ms, 3)}`;
}

/** The zone's name for labels: "UTC" or e.g. "UTC+01:00". */
export function zoneLabel(tz: Tz, at = Date.now()): string {
  if (tz === 'utc') return 'UTC';
  const off = -new Date(at).getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const a = Math.abs(off);
  return `local, UTC${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** What a date-time box shows while empty: the one format every such box takes. */
export const TIME_PLACEHOLDER = 'YYYY-MM-DD hh:mm';

/** How to type a time, for titles and errors. */
export function timeHelp(tz: Tz): string {
  return `YYYY-MM-DD hh:mm[:ss[.mmm]] in ${tz === 'utc' ? 'UTC' : 'local time'} (the toolbar's choice), RFC 3339 with Z or an offset, e.g. 2026-11-30T08:00:00Z, or a time ago such as 1h ago`;
}

/**
 * Parse a time typed by a person: "2026-11-29 21:30[:02[.123]]" in the chosen
 * zone, an ISO time with Z or an offset, or UNIX seconds. Null when unreadable.
 */
export function parseTime(text: string, tz: Tz): number | null {
  const t = text.trim();
  if (t === '') return null;
  if (/^\d+(\.\d+)?$/.test(t) && t.length >= 9) return Number(t);
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0', zone] = m;
  const fracMs = Number(('0.' + frac).slice(0, 8)) * 1000;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  if (fields[1] > 11 || fields[2] < 1 || fields[2] > 31 || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) return null;
  // No rolling over: 2026-02-31 is a typo, not March 3rd.
  const check = new Date(Date.UTC(fields[0], fields[1], fields[2]));
  if (check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2]) return null;
  let ms: number;
  if (zone) {
    ms = Date.UTC(...fields) + fracMs;
    if (zone.toUpperCase() !== 'Z') {
      const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
      const off = (Number(zm[2]) * 60 + Number(zm[3])) * (zm[1] === '+' ? 1 : -1);
      ms -= off * 60000;
    }
  } else if (tz === 'utc') {
    ms = Date.UTC(...fields) + fracMs;
  } else {
    ms = new Date(...fields).getTime() + fracMs;
  }
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/** Split a hex string into bytes. */
export function hexToBytes(hex: string): Uint8Array {
  const clean = hex.replace(/[^0-9a-fA-F]/g, '');
  const out = new Uint8Array(Math.floor(clean.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

export type HexLine = { offset: string; hex: string; ascii: string };

/**
 * A classic hex dump: `perLine` bytes a line (16, or 8 for a narrow pane) in
 * groups of 8, the offset (as few hex digits as the size needs, at least 4),
 * and printable ASCII. Every line's hex column has the same width, so the
 * ASCII column stays aligned on the last line too.
 */
export function hexDump(bytes: Uint8Array, maxBytes = 65536, perLine: 8 | 16 = 16): HexLine[] {
  const lines: HexLine[] = [];
  const n = Math.min(bytes.length, maxBytes);
  const digits = Math.max(4, Math.max(0, n - 1).toString(16).length);
  for (let at = 0; at < n; at += perLine) {
    const chunk = bytes.subarray(at, Math.min(at + perLine, n));
    const hex: string[] = [];
    let ascii = '';
    for (let i = 0; i < perLine; i++) {
      if (i > 0) hex.push(i % 8 === 0 ? '  ' : ' ');
      if (i < chunk.length) {
        hex.push(chunk[i].toString(16).padStart(2, '0'));
        ascii += chunk[i] >= 0x20 && chunk[i] < 0x7f ? String.fromCharCode(chunk[i]) : '·';
      } else hex.push('  ');
    }
    lines.push({ offset: at.toString(16).padStart(digits, '0'), hex: hex.join(''), ascii: ascii.padEnd(perLine, ' ') });
  }
  return lines;
}

/** Characters of one hex dump line: offset, two gaps of 2, the bytes, the ASCII. */
export function hexLineChars(perLine: 8 | 16, offsetDigits = 4): number {
  return offsetDigits + 2 + (perLine * 3 - 1 + Math.floor((perLine - 1) / 8)) + 2 + perLine;
}

/** "0a 1b 2c …" for the table. */
export function hexPreview(hex: string, maxBytes = 24): string {
  const clean = hex.replace(/[^0-9a-fA-F]/g, '');
  const n = Math.floor(clean.length / 2);
  const shown: string[] = [];
  for (let i = 0; i < Math.min(n, maxBytes); i++) shown.push(clean.slice(i * 2, i * 2 + 2));
  return shown.join(' ') + (n > maxBytes ? ' …' : '');
}

/** One line of text for the table: control characters shown, long text cut. */
export function oneLine(s: string, max = 400): string {
  const cut = s.length > max ? s.slice(0, max) + '…' : s;
  return cut.replace(/\r\n|\n|\r/g, '⏎').replace(/\t/g, '⇥').replace(/[\u0000-\u001f\u007f]/g, '·');
}

/** The payload column: text; `Class {compact json}`; hex bytes; a damaged line's problem; a large message's part. */
export function payloadPreview(row: Row): string {
  if (row.row === 'damaged') return `${row.file}:${row.line} — ${row.problem}`;
  if (row.row === 'part') return partText(row.next_message);
  if (row.kind === 'dataclass') {
    const cls = row.class ?? `#${row.type_id ?? '?'}`;
    // The pretty form shows characters rather than \u escapes; its line breaks are all structural.
    const fields = row.fields_pretty != null ? row.fields_pretty.replace(/\n\s*/g, ' ') : (row.fields_json ?? '');
    return oneLine(`${cls} ${fields}`);
  }
  if (row.kind === 'bytes') return hexPreview(row.hex ?? '');
  return oneLine(row.text ?? '');
}

/** What a part row of a large message says. */
export function partText(next: string | null): string {
  return next === null
    ? 'part of a large message not ended (being written, or cut short by a crash: never shown)'
    : `part of a large message · shown whole at its last part, #${next}`;
}

/** A message's key as the table shows it: the text, hex for bytes, or a word for none. */
export function keyShown(key: string, kind: 'int' | 'str' | 'bytes' | 'null'): { text: string; title: string; muted: boolean } {
  switch (kind) {
    case 'null':
      return { text: 'null', title: 'no key (a null key): spread over the partitions in turn', muted: true };
    case 'bytes':
      return { text: `0x${key}`, title: `bytes key, ${key.length / 2} byte${key.length === 2 ? '' : 's'} (hex): 0x${key}`, muted: false };
    case 'str':
      return key === '' ? { text: '""', title: 'the empty text key', muted: true } : { text: key, title: `text key: ${key}`, muted: false };
    default:
      return { text: key, title: `integer key ${key}`, muted: false };
  }
}

/** The key kinds in words, for the detail pane. */
export const KEY_KIND_LABEL = { int: 'integer', str: 'text', bytes: 'bytes, as hex', null: 'no key (null)' } as const;

/** Whether text looks like a JSON object or array (its first and, when whole, last characters): the table's cheap guess. */
export function looksJson(text: string, whole = true): boolean {
  const t = text.trimStart();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  if (!whole) return true;
  const e = t.trimEnd();
  return (t[0] === '{' && e.endsWith('}')) || (t[0] === '[' && e.endsWith(']'));
}

/** The payload kind column: text, JSON, bytes or typed. */
export function payloadKind(row: Row): 'text' | 'JSON' | 'bytes' | 'typed' | '' {
  if (row.row !== 'message') return '';
  if (row.kind === 'dataclass') return 'typed';
  if (row.kind === 'bytes') return 'bytes';
  return looksJson(row.text ?? '', !row.truncated) ? 'JSON' : 'text';
}

/** A payload size for the table: "12 B", "1.5 KB", "10.0 MB". */
export function sizeShown(bytes: number): string {
  return formatBytes(bytes);
}

/** A stable hue per partition (golden-angle steps, so neighbours differ). */
export function partitionHue(p: number): number {
  return Math.round((p * 137.508 + 200) % 360);
}

/** A stable hue per group member id (golden-angle steps; neighbours differ, and differ from partitions). */
export function memberHue(id: number): number {
  return Math.round((id * 137.508 + 22) % 360);
}

/** A span of seconds for people: "0.4 s", "42 s", "5 min 3 s", "2 h 10 min", "3 d 4 h". */
export function humanDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, seconds);
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.floor(s)} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    const r = Math.floor(s % 60);
    return r ? `${m} min ${r} s` : `${m} min`;
  }
  if (s < 86400) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  return h ? `${d} d ${h} h` : `${d} d`;
}

/** Messages a second for people: "0", "0.4", "12", "1.2 k". */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return '0';
  if (perSecond < 10) return perSecond.toFixed(1).replace(/\.0$/, '');
  if (perSecond < 10000) return String(Math.round(perSecond));
  if (perSecond < 1e6) return `${(perSecond / 1000).toFixed(1)} k`;
  return `${(perSecond / 1e6).toFixed(1)} M`;
}


/**
 * A time typed as a duration before `nowSecs`: "1h ago", "90m ago", "2d ago" or "1h30m ago"
 * (s, m, h, d, w, as group resets take them; "ago" may be left out). Null when not one.
 */
export function parseAgo(text: string, nowSecs: number): number | null {
  const t = text.trim().toLowerCase().replace(/\s*ago$/, '').replace(/\s+/g, '');
  if (!/^(\d+[smhdw])+$/.test(t)) return null;
  const unit: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  let total = 0;
  for (const [, n, u] of t.matchAll(/(\d+)([smhdw])/g)) total += Number(n) * unit[u];
  // Up to 100 years, as the engine takes for resets.
  return Number.isSafeInteger(total) && total <= 3_155_760_000 ? nowSecs - total : null;
}
