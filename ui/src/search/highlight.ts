// Where a search's text, regex or key shows in a row's cells: the table marks it, so a hit
// says why it is one. Cells are only ever text: marks split the text, never build markup.

import type { Parsed } from './filter';

/** The most marks a cell shows (past them the rest of the text is plain). */
const MAX_MARKS = 64;

/**
 * What to mark for a search: its text (as typed, case folded unless `caseSensitive`), its
 * regex (when JavaScript reads it as the engine does; null when not), or its key. A CEL
 * filter marks nothing (what it matched is a field, not a place in the text).
 */
export function markPattern(p: Parsed, caseSensitive: boolean): { re: RegExp; on: 'payload' | 'key' } | null {
  if (p.body === '') return null;
  const flags = caseSensitive ? 'g' : 'gi';
  if (p.mode === 'text') return { re: new RegExp(escapeRegex(p.body), flags), on: 'payload' };
  if (p.mode === 'key') return { re: new RegExp(`^${escapeRegex(p.body)}$`, 'g'), on: 'key' };
  if (p.mode === 'regex') {
    try {
      // `u` keeps character classes on characters, as the engine's regex does.
      const re = new RegExp(p.body, flags + 'u');
      return re.test('') ? null : { re, on: 'payload' };
    } catch {
      return null;
    }
  }
  return null;
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `text` cut into runs, `hit` where `re` matches (no empty match; at most MAX_MARKS). */
export function splitMarks(text: string, re: RegExp | null): { text: string; hit: boolean }[] {
  if (!re || text === '') return [{ text, hit: false }];
  const out: { text: string; hit: boolean }[] = [];
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
  let at = 0;
  let n = 0;
  for (const m of text.matchAll(g)) {
    if (m[0] === '' || m.index === undefined) continue;
    if (m.index > at) out.push({ text: text.slice(at, m.index), hit: false });
    out.push({ text: m[0], hit: true });
    at = m.index + m[0].length;
    if (++n >= MAX_MARKS) break;
  }
  if (at < text.length) out.push({ text: text.slice(at), hit: false });
  return out.length ? out : [{ text, hit: false }];
}
