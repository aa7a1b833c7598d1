// What the detail pane shows of a payload: the payload as far as known (a truncated
// row's own first bytes, or what its PayloadReader read), its text, that text in blocks,
// and its JSON. Pure: the pane derives each from the row and the reader's state.

import type { MessageRow, Row } from '../backend';
import { hexToBytes, partText, utf8 } from '../shared/format';
import { hasUnsafeIntegers, prettyJson, readableJson } from '../shared/json';
import type { Whole } from './payload.svelte';

/** The payload as far as known, and how many of its bytes that is. */
export type Body = { text: string | null; hex: string | null; fields: string | null; complete: boolean; have: number };

/** The payload as far as known: the row's own (whole unless truncated), or what was read. */
export function payloadBody(m: MessageRow | null, w: Whole | null | undefined): Body | null {
  if (!m) return null;
  if (m.truncated && w && !w.error) {
    const d = w.data;
    const complete = w.read >= w.size;
    return m.kind === 'bytes' ? { text: null, hex: d, fields: null, complete, have: w.shown } : m.kind === 'dataclass' ? { text: null, hex: null, fields: d, complete, have: w.shown } : { text: d, hex: null, fields: null, complete, have: w.shown };
  }
  const have = m.truncated ? (m.kind === 'bytes' ? (m.hex ?? '').length / 2 : utf8(m.kind === 'dataclass' ? (m.fields_json ?? '') : (m.text ?? '')).length) : m.size;
  return { text: m.text, hex: m.hex, fields: m.fields_json, complete: !m.truncated, have };
}

/** The row as text: a payload decoded, a typed message's class and fields, or what a line is. */
export function detailText(row: Row, body: Body | null): string {
  if (row.row === 'damaged') return `Damaged line ${row.line} of ${row.file}: ${row.problem}`;
  if (row.row === 'part') return partText(row.next_message);
  if (row.kind === 'dataclass') return `${row.class ?? `#${row.type_id}`} ${body?.complete ? readableJson(body.fields ?? '') : (body?.fields ?? '')}`;
  if (row.kind === 'bytes') {
    const bytes = hexToBytes(body?.hex ?? '');
    const decoded = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    return decoded;
  }
  return body?.text ?? '';
}

/** Characters of a long text's block (cut at a line break near it when there is one). */
export const CHUNK = 64 * 1024;

/** `text` in blocks of about CHUNK characters. */
export function textChunks(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + CHUNK);
    const nl = end < text.length ? text.lastIndexOf('\n', end) : -1;
    if (nl > at) end = nl + 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** The payload's JSON, formatted, with a note and its source; null when it is none (or too large to draw). */
export function payloadJson(m: MessageRow | null, body: Body | null): { text: string; note: string; src: string } | null {
  if (!m || !body?.complete) return null;
  // Past this a tree (and the formatted text) would take the window too long: Text and Save show it.
  if (m.size > 2 * 1024 * 1024) return null;
  if (m.kind === 'dataclass') {
    const src = body.fields ?? '';
    return {
      text: m.fields_pretty ?? prettyJson(src) ?? src,
      note: hasUnsafeIntegers(src) ? 'Holds integers beyond 2^53: shown exactly as stored.' : '',
      src,
    };
  }
  if (m.kind === 'str' && body.text !== null) {
    const src = body.text;
    const t = src.trim();
    if (!(t.startsWith('{') || t.startsWith('['))) return null;
    if (hasUnsafeIntegers(src)) {
      // Shown as written: parsing would round integers past 2^53.
      return { text: src, note: 'Holds integers beyond 2^53: shown as written, not reformatted.', src };
    }
    const pretty = prettyJson(src);
    return pretty === null ? null : { text: pretty, note: '', src };
  }
  return null;
}
