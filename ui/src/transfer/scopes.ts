// The selections the Messages tab offers to export or copy: the whole topic
// (or partition shown), the time range, the search's hits, the rows picked.

import type { SelectionDto } from '../backend';
import { groupDigits } from '../shared/format';

export type ScopeId = 'all' | 'range' | 'search' | 'picked';

export type Scope = {
  id: ScopeId;
  label: string;
  /** How many messages, when known (a decimal string). */
  count: string | null;
  selection: SelectionDto;
};

/** A scope's line in a dialog: "The search's 12 hits". */
export function scopeText(s: Scope): string {
  return s.count === null ? s.label : `${s.label} (${s.count})`;
}

/** What the Messages tab shows and has picked, for the scopes it offers. */
export type ScopeSource = {
  /** The rows picked, in the order picked. */
  picked: { partition: number; offset: string }[];
  /** The search whose hits can be taken (ended or cancelled), if any. */
  search: { id: number; cancelled: boolean; label: string; hits: bigint } | null;
  /** The partitions shown (null: all), the time range, and its messages when counted. */
  partitions: number[] | null;
  range: { from: number | null; to: number | null };
  rangeCount: bigint | null;
  /** The partition shown (null: the whole topic), and its lines. */
  partition: number | null;
  lines: bigint;
};

/** The selections offered, the likeliest first: the rows picked, the search's hits, the time range, all. */
export function messageScopes(s: ScopeSource): Scope[] {
  const out: Scope[] = [];
  const n = s.picked.length;
  if (n > 0) out.push({ id: 'picked', label: `The ${n === 1 ? 'row' : 'rows'} picked`, count: groupDigits(BigInt(n)), selection: { kind: 'picked', messages: s.picked } });
  if (s.search) {
    out.push({ id: 'search', label: `The search's ${s.search.cancelled ? 'hits found before it was cancelled' : 'hits'} (${s.search.label})`, count: groupDigits(s.search.hits), selection: { kind: 'search', id: s.search.id } });
  }
  if (s.range.from !== null || s.range.to !== null) {
    const query = { key: null, text: null, regex: false, case_sensitive: false, partitions: s.partitions, since: s.range.from, until: s.range.to, filter: null };
    out.push({ id: 'range', label: 'The messages in the time range', count: s.rangeCount === null ? null : groupDigits(s.rangeCount), selection: { kind: 'query', query } });
  }
  out.push({ id: 'all', label: s.partition === null ? 'The whole topic' : `All of partition ${s.partition}`, count: groupDigits(s.lines), selection: { kind: 'all', partitions: s.partitions } });
  return out;
}
