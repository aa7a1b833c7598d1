// Two records side by side: each field of both, and whether they differ (the cluster window's
// Compare, for two rows picked with ctrl/cmd-click).

import type { MessageRow } from '../backend';
import { formatTime, groupDigits, type Tz } from '../shared/format';
import { keyText, recordKind, valueText } from './clusterView.svelte';

export type CompareRow = { field: string; a: string; b: string; same: boolean };

function headerValue(h: { text: string | null; hex: string | null; null: boolean }): string {
  return h.null ? '(null)' : h.text !== null ? h.text : `0x${h.hex}`;
}

/** The fields of `a` and `b`, each header by name (a repeated name's values in order). */
export function compareRecords(a: MessageRow, b: MessageRow, tz: Tz): CompareRow[] {
  const row = (field: string, x: string, y: string): CompareRow => ({ field, a: x, b: y, same: x === y });
  const rows = [
    row('Partition / offset', `${a.partition} / ${groupDigits(a.offset)}`, `${b.partition} / ${groupDigits(b.offset)}`),
    row('Time', formatTime(a.timestamp, tz), formatTime(b.timestamp, tz)),
    row('Key', keyText(a), keyText(b)),
    row('Kind', recordKind(a), recordKind(b)),
    row('Size', `${a.size} bytes`, `${b.size} bytes`),
    row('Value', valueText(a), valueText(b)),
  ];
  // Position never makes two records differ: compare what they hold.
  rows[0].same = true;
  const headers = (r: MessageRow) => {
    const m = new Map<string, string[]>();
    for (const h of r.kafka?.headers ?? []) m.set(h.name, [...(m.get(h.name) ?? []), headerValue(h)]);
    return m;
  };
  const ha = headers(a);
  const hb = headers(b);
  for (const name of [...new Set([...ha.keys(), ...hb.keys()])]) {
    rows.push(row(`Header ${name}`, (ha.get(name) ?? ['(none)']).join(' · '), (hb.get(name) ?? ['(none)']).join(' · ')));
  }
  return rows;
}

/** What differs, in a few words: "the key, the value and 1 header", or "nothing but their place". */
export function differences(rows: CompareRow[]): string {
  const diff = rows.filter((r) => !r.same);
  if (diff.length === 0) return 'nothing but their place: the same time, key, value and headers';
  const headers = diff.filter((r) => r.field.startsWith('Header ')).length;
  const named = diff.filter((r) => !r.field.startsWith('Header ')).map((r) => `the ${r.field.toLowerCase()}`);
  if (headers) named.push(`${headers} header${headers === 1 ? '' : 's'}`);
  return named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
}
