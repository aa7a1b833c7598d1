// The sidebar's filter and remembered section state.

import type { GroupSummary, TopicSummary } from './backend';

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
