// The topics overview (the main pane while no topic is picked): every topic of the store in one
// table, sorted by what the user picks, empty ones hidden on request. Pure, so it is tested alone.
import type { TopicSummary } from '../backend/api';

/** The columns the table sorts by. */
export type OverviewSort = 'name' | 'partitions' | 'messages' | 'bytes' | 'last' | 'rate';
export type OverviewOrder = { by: OverviewSort; desc: boolean };

/** A topic's row: its summary and its current rate (messages a second; 0 when none is known). */
export type OverviewRow = { topic: TopicSummary; rate: number };

/** Counts and sizes are u64 decimal strings: compared as such, never through a lossy number. */
function big(dec: string): bigint {
  try {
    return BigInt(dec);
  } catch {
    return -1n;
  }
}

function cmp(a: OverviewRow, b: OverviewRow, by: OverviewSort): number {
  switch (by) {
    case 'name':
      return a.topic.name < b.topic.name ? -1 : a.topic.name > b.topic.name ? 1 : 0;
    case 'partitions':
      return a.topic.partitions - b.topic.partitions;
    case 'messages': {
      const x = big(a.topic.messages);
      const y = big(b.topic.messages);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'bytes': {
      const x = big(a.topic.bytes);
      const y = big(b.topic.bytes);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'last':
      return (a.topic.last_message ?? -Infinity) - (b.topic.last_message ?? -Infinity);
    case 'rate':
      return a.rate - b.rate;
  }
}

/** Whether a topic holds no message (a topic whose config cannot be read is never called empty). */
export function isEmptyTopic(t: TopicSummary): boolean {
  return t.error === null && big(t.messages) === 0n;
}

/**
 * The rows shown: those whose name holds `filter` (any case), without the empty ones when
 * `hideEmpty`, in `order`; ties by name, so the order never jumps between refreshes.
 */
export function overviewRows(rows: readonly OverviewRow[], order: OverviewOrder, filter: string, hideEmpty: boolean): OverviewRow[] {
  const needle = filter.trim().toLowerCase();
  const kept = rows.filter((r) => (!hideEmpty || !isEmptyTopic(r.topic)) && (needle === '' || r.topic.name.toLowerCase().includes(needle)));
  return kept.sort((a, b) => {
    const c = cmp(a, b, order.by);
    if (c !== 0) return order.desc ? -c : c;
    return cmp(a, b, 'name');
  });
}

/** A click on a column's header: that column, largest first for figures, A-Z for names; again: the other way. */
export function nextOrder(current: OverviewOrder, by: OverviewSort): OverviewOrder {
  if (current.by === by) return { by, desc: !current.desc };
  return { by, desc: by !== 'name' };
}
