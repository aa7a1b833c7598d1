// The selections the Messages tab offers to export or copy: the whole topic
// (or partition shown), the time range, the search's hits, the rows picked.

import type { SelectionDto } from '../backend';

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
