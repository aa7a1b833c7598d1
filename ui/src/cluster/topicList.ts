// A cluster's topics as its window lists them: the sidebar as a flat list or a tree by name
// prefix (thousands of topics named `team.domain.event` fold into their prefixes), and the
// overview table sorted by what the user picks. Pure, so it is tested alone.
import type { ClusterTopic } from '../backend';

/** The separators a prefix ends at: `payments.refunds`, `payments-refunds`, `payments_refunds`. */
const SEP = /[._-]/;

/** A topic's prefix: its name up to the first separator; none for a name without one. */
export function prefixOf(name: string): string | null {
  const m = SEP.exec(name);
  return m && m.index > 0 ? name.slice(0, m.index) : null;
}

export type TreeRow =
  | { kind: 'prefix'; prefix: string; topics: number; messages: string; open: boolean }
  | { kind: 'topic'; topic: ClusterTopic; nested: boolean };

function matches(t: ClusterTopic, needle: string): boolean {
  return needle === '' || t.name.toLowerCase().includes(needle);
}

/**
 * The sidebar's rows. Flat: every topic matching `filter`, by name. As a tree: topics sharing a
 * prefix with at least one other under a row of that prefix (its topics and their messages,
 * summed exactly), open when in `open` or while a filter is typed; the others at the top level;
 * all by name.
 */
export function sidebarRows(topics: readonly ClusterTopic[], filter: string, tree: boolean, open: ReadonlySet<string>): TreeRow[] {
  const needle = filter.trim().toLowerCase();
  const kept = topics.filter((t) => matches(t, needle)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!tree) return kept.map((topic) => ({ kind: 'topic', topic, nested: false }));
  const byPrefix = new Map<string, ClusterTopic[]>();
  for (const t of kept) {
    const p = prefixOf(t.name);
    if (p !== null) byPrefix.set(p, [...(byPrefix.get(p) ?? []), t]);
  }
  const rows: TreeRow[] = [];
  const done = new Set<string>();
  for (const t of kept) {
    const p = prefixOf(t.name);
    const group = p === null ? undefined : byPrefix.get(p);
    if (p === null || group === undefined || group.length < 2) {
      rows.push({ kind: 'topic', topic: t, nested: false });
      continue;
    }
    if (done.has(p)) continue;
    done.add(p);
    const isOpen = open.has(p) || needle !== '';
    const messages = group.reduce((sum, x) => sum + BigInt(x.messages), 0n).toString();
    rows.push({ kind: 'prefix', prefix: p, topics: group.length, messages, open: isOpen });
    if (isOpen) for (const x of group) rows.push({ kind: 'topic', topic: x, nested: true });
  }
  return rows;
}

export type TopicSort = 'name' | 'partitions' | 'messages' | 'rate';
export type TopicOrder = { by: TopicSort; desc: boolean };

/** The overview's rows: matching `filter`, without the empty ones when `hideEmpty`, in `order`; ties by name. */
/** Records written to a topic so far: the sum of its partitions' ends (what retention removes does not count down). */
export function writtenOf(t: ClusterTopic): bigint {
  return t.partitions.reduce((s, p) => s + BigInt(p.high), 0n);
}

/** A reading of each topic's written records, for the rates. */
export type Reading = { at: number; written: Map<string, bigint> };

/** Each topic's records written a second between two readings (a topic made again, its ends lower: none). */
export function writeRates(before: Reading | null, now: Reading): Map<string, number> {
  const out = new Map<string, number>();
  if (!before || now.at <= before.at) return out;
  const secs = (now.at - before.at) / 1000;
  for (const [name, w] of now.written) {
    const b = before.written.get(name);
    if (b === undefined || w < b) continue;
    out.set(name, Number(w - b) / secs);
  }
  return out;
}

export function overviewRows(
  topics: readonly ClusterTopic[],
  order: TopicOrder,
  filter: string,
  hideEmpty: boolean,
  rates: ReadonlyMap<string, number> = new Map(),
): ClusterTopic[] {
  const needle = filter.trim().toLowerCase();
  const byName = (a: ClusterTopic, b: ClusterTopic) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const cmp = (a: ClusterTopic, b: ClusterTopic): number => {
    switch (order.by) {
      case 'name':
        return byName(a, b);
      case 'partitions':
        return a.partitions.length - b.partitions.length;
      case 'messages': {
        const x = BigInt(a.messages);
        const y = BigInt(b.messages);
        return x < y ? -1 : x > y ? 1 : 0;
      }
      case 'rate':
        // Not known yet sorts below 0.
        return (rates.get(a.name) ?? -1) - (rates.get(b.name) ?? -1);
    }
  };
  return topics
    .filter((t) => matches(t, needle) && (!hideEmpty || BigInt(t.messages) > 0n))
    .sort((a, b) => {
      const c = cmp(a, b);
      if (c !== 0) return order.desc ? -c : c;
      return byName(a, b);
    });
}
