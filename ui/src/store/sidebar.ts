// The sidebar's filter and remembered section state.

import type { GroupSummary, TopicSummary } from '../backend';

/**
 * Topics whose name contains `query`, and groups whose name or topic does
 * (case-insensitive, as typed; white space around it ignored). An empty query keeps all.
 */
export function filterStore(
  topics: readonly TopicSummary[],
  groups: readonly GroupSummary[],
  query: string,
): { topics: readonly TopicSummary[]; groups: readonly GroupSummary[] } {
  const q = query.trim().toLowerCase();
  if (q === '') return { topics, groups };
  return {
    topics: topics.filter((t) => t.name.toLowerCase().includes(q)),
    groups: groups.filter((g) => g.name.toLowerCase().includes(q) || (g.topic ?? '').toLowerCase().includes(q)),
  };
}

export type Sections = { topics: boolean; groups: boolean };
const KEY = 'twainmq.sidebar.sections';

export function loadSections(): Sections {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Sections> | null;
    return { topics: v?.topics !== false, groups: v?.groups !== false };
  } catch {
    return { topics: true, groups: true };
  }
}

export function saveSections(s: Sections): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(s));
  } catch {
    /* no storage (private mode): the sections open again next time */
  }
}

/**
 * Type-ahead in a list: the index of the item to go to for the letters typed
 * so far (`typed`, lower case), starting the search at `from`: the first name,
 * going down and round, that starts with them. The same letter typed again
 * (`"aa"`) steps through the names starting with it. -1: none.
 */
export function typeAhead(names: readonly string[], typed: string, from: number): number {
  if (typed === '' || names.length === 0) return -1;
  const same = [...typed].every((c) => c === typed[0]);
  const prefix = same ? typed[0] : typed;
  // A new search starts at the current item (it may already match); a repeated letter moves on.
  const start = same && typed.length > 1 ? from + 1 : Math.max(from, 0);
  for (let k = 0; k < names.length; k++) {
    const i = (start + k) % names.length;
    if (names[i].toLowerCase().startsWith(prefix)) return i;
  }
  return -1;
}
