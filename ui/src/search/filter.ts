// The filter box: one input for plain text, /regex/, key:K or a CEL expression
// (docs/QUERY.md). Which one it is, what the search asks for, completion of
// CEL's variables and of the topic's JSON fields, and filters saved per topic.

import type { SearchQuery } from '../backend/api';

export type FilterMode = 'text' | 'regex' | 'key' | 'cel';
/** `auto` decides from the input; the others force a mode. */
export type ModeChoice = 'auto' | FilterMode;

export const MODE_LABEL: Record<FilterMode, string> = { text: 'text', regex: 'regex', key: 'key', cel: 'CEL' };

/** The variables a CEL filter can read, with what each is (for completion). */
export const CEL_VARIABLES: { name: string; doc: string }[] = [
  { name: 'key', doc: 'the message key (int or string)' },
  { name: 'partition', doc: 'its partition' },
  { name: 'offset', doc: 'its offset' },
  { name: 'timestamp', doc: 'when it was written (a CEL timestamp)' },
  { name: 'kind', doc: '"str", "bytes" or "dataclass"' },
  { name: 'class', doc: "a typed message's class" },
  { name: 'text', doc: 'the payload as text' },
  { name: 'value', doc: 'JSON text parsed, or typed fields; null otherwise' },
  { name: 'size', doc: 'payload size in bytes' },
];

const CEL_FUNCTIONS = ['contains(', 'startsWith(', 'endsWith(', 'matches(', 'size(', 'has(', 'timestamp(', 'duration(', 'int(', 'string(', 'double('];

/** Does plain text look like a CEL expression (an operator, a call, a variable's field)? */
export function looksLikeCel(s: string): boolean {
  const t = s.trim();
  if (t === '') return false;
  if (/(==|!=|>=|<=|&&|\|\||(^|[^-])>|<)/.test(t)) return true;
  if (/\b(key|partition|offset|timestamp|kind|class|text|value|size)\s*(\.|\[|\s+in\s+\[)/.test(t)) return true;
  if (/^!?\s*(has|size|timestamp|matches)\s*\(/.test(t)) return true;
  return /^(true|false)$/.test(t);
}

export type Parsed = {
  mode: FilterMode;
  /** What is searched for: the text, pattern, key or expression (trimmed). */
  body: string;
};

/** Which mode the input is in, and its body. */
export function parseFilter(input: string, choice: ModeChoice = 'auto'): Parsed {
  const t = input.trim();
  if (choice !== 'auto') {
    if (choice === 'regex') {
      const m = /^\/(.*)\/$/s.exec(t);
      return { mode: 'regex', body: m ? m[1] : t };
    }
    if (choice === 'key') return { mode: 'key', body: t.replace(/^key:\s*/, '') };
    return { mode: choice, body: t };
  }
  const re = /^\/(.+)\/$/s.exec(t);
  if (re) return { mode: 'regex', body: re[1] };
  const key = /^key:\s*(.*)$/s.exec(t);
  if (key) return { mode: 'key', body: key[1].trim() };
  if (looksLikeCel(t)) return { mode: 'cel', body: t };
  return { mode: 'text', body: t };
}

/** The search query of a filter, a partition choice and a time range (UNIX seconds). */
export function toQuery(p: Parsed, opts: { caseSensitive: boolean; partitions: number[] | null; since: number | null; until: number | null }): SearchQuery {
  return {
    key: p.mode === 'key' ? p.body : null,
    text: p.mode === 'text' || p.mode === 'regex' ? p.body : null,
    regex: p.mode === 'regex',
    case_sensitive: opts.caseSensitive,
    partitions: opts.partitions,
    since: opts.since,
    until: opts.until,
    filter: p.mode === 'cel' ? p.body : null,
  };
}

/** The word being typed at `caret`: a variable, or a dotted path like value.us. */
export function wordAt(text: string, caret: number): { start: number; word: string } {
  let i = caret;
  while (i > 0 && /[A-Za-z0-9_.]/.test(text[i - 1])) i--;
  return { start: i, word: text.slice(i, caret) };
}

export type Completion = { insert: string; label: string; doc: string };

/** What can complete `word`: variables, the topic's field paths, functions after a dot. */
export function completions(word: string, fields: string[], max = 8): Completion[] {
  if (word === '') return [];
  const out: Completion[] = [];
  const lw = word.toLowerCase();
  if (!word.includes('.')) {
    for (const v of CEL_VARIABLES) if (v.name.startsWith(lw) && v.name !== word) out.push({ insert: v.name, label: v.name, doc: v.doc });
  }
  for (const f of fields) if (f.toLowerCase().startsWith(lw) && f !== word) out.push({ insert: f, label: f, doc: 'a field seen in this topic' });
  const dot = word.lastIndexOf('.');
  if (dot >= 0 && !word.startsWith('value.')) {
    const head = word.slice(0, dot + 1);
    const tail = word.slice(dot + 1);
    for (const fn of CEL_FUNCTIONS) if (fn.startsWith(tail)) out.push({ insert: head + fn, label: fn, doc: 'a function' });
  }
  return out.slice(0, max);
}

/** Put completion `c` in place of the word at `start..caret`; returns the text and the new caret. */
export function applyCompletion(text: string, start: number, caret: number, c: Completion): { text: string; caret: number } {
  const next = text.slice(0, start) + c.insert + text.slice(caret);
  return { text: next, caret: start + c.insert.length };
}

/** A compile error's place and the line of the expression it is on, for the caret under it. */
export function caretLine(expr: string, line: number, column: number): { text: string; pad: string } {
  const lines = expr.split('\n');
  const text = lines[Math.max(0, Math.min(lines.length - 1, line - 1))] ?? '';
  return { text, pad: ' '.repeat(Math.max(0, column - 1)) };
}

// ---- saved filters, per topic, in the UI's prefs (localStorage) ----------------

export type SavedFilter = { name: string; expr: string };
const SAVED_KEY = 'twainmq.savedFilters';

function readAll(): Record<string, SavedFilter[]> {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(SAVED_KEY) ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, SavedFilter[]>) : {};
  } catch {
    return {};
  }
}

function writeAll(all: Record<string, SavedFilter[]>): void {
  try {
    localStorage.setItem(SAVED_KEY, JSON.stringify(all));
  } catch {
    /* no storage: saved for this session only */
  }
}

export function savedFilters(topic: string): SavedFilter[] {
  const list = readAll()[topic];
  return Array.isArray(list) ? list.filter((f) => typeof f?.name === 'string' && typeof f?.expr === 'string') : [];
}

/** Save (or replace, by name) a filter of a topic; returns the topic's list. */
export function saveFilter(topic: string, f: SavedFilter): SavedFilter[] {
  const all = readAll();
  const list = savedFilters(topic).filter((x) => x.name !== f.name);
  list.push(f);
  list.sort((a, b) => a.name.localeCompare(b.name));
  all[topic] = list;
  writeAll(all);
  return list;
}

export function deleteFilter(topic: string, name: string): SavedFilter[] {
  const all = readAll();
  const list = savedFilters(topic).filter((x) => x.name !== name);
  if (list.length === 0) delete all[topic];
  else all[topic] = list;
  writeAll(all);
  return list;
}
