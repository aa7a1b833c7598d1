// A cluster's consumer groups as the cluster window shows them: the overview's rows sorted and
// filtered, one group's partitions sorted and filtered to the lagging ones, and what each commit
// means in words. Pure, so it is tested alone.
import type { ClusterGroupPartition, ClusterGroupSummary, CommitStanding } from '../backend';

export type GroupSort = 'id' | 'state' | 'members' | 'topics' | 'lag';
export type GroupOrder = { by: GroupSort; desc: boolean };
export type PartitionSort = 'partition' | 'committed' | 'end' | 'lag';
export type PartitionOrder = { by: PartitionSort; desc: boolean };

/** u64 decimal strings compared exactly (never through a lossy number); a missing one is least. */
function big(dec: string | null): bigint {
  if (dec === null) return -1n;
  try {
    return BigInt(dec);
  } catch {
    return -1n;
  }
}

function order3(x: bigint, y: bigint): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpGroup(a: ClusterGroupSummary, b: ClusterGroupSummary, by: GroupSort): number {
  switch (by) {
    case 'id':
      return byName(a.id, b.id);
    case 'state':
      return byName(a.state, b.state);
    case 'members':
      return a.members - b.members;
    case 'topics':
      return a.topics.length - b.topics.length;
    case 'lag':
      return order3(big(a.lag), big(b.lag));
  }
}

/**
 * The overview's rows: those whose id or one of whose topics holds `filter` (any case), the
 * bridge's lease groups only when `showLeases`, in `order`; ties by id, so rows never jump
 * between refreshes.
 */
export function groupRows(groups: readonly ClusterGroupSummary[], order: GroupOrder, filter: string, showLeases: boolean): ClusterGroupSummary[] {
  const needle = filter.trim().toLowerCase();
  const kept = groups.filter(
    (g) => (showLeases || !g.mirror_lease) && (needle === '' || g.id.toLowerCase().includes(needle) || g.topics.some((t) => t.toLowerCase().includes(needle))),
  );
  return kept.sort((a, b) => {
    const c = cmpGroup(a, b, order.by);
    if (c !== 0) return order.desc ? -c : c;
    return byName(a.id, b.id);
  });
}

function cmpPartition(a: ClusterGroupPartition, b: ClusterGroupPartition, by: PartitionSort): number {
  switch (by) {
    case 'partition':
      return byName(a.topic, b.topic) || a.partition - b.partition;
    case 'committed':
      return order3(big(a.committed), big(b.committed));
    case 'end':
      return order3(big(a.end), big(b.end));
    case 'lag':
      return order3(big(a.lag), big(b.lag));
  }
}

/** Whether a partition needs a look: lag above 0, or a commit that is not within the partition. */
export function needsLook(p: ClusterGroupPartition): boolean {
  return big(p.lag) > 0n || (p.standing !== 'within' && p.standing !== 'none');
}

/** A group's partitions in `order` (ties by topic and partition), only those that need a look when `lagging`. */
export function partitionRows(parts: readonly ClusterGroupPartition[], order: PartitionOrder, lagging: boolean): ClusterGroupPartition[] {
  const kept = parts.filter((p) => !lagging || needsLook(p));
  return kept.sort((a, b) => {
    const c = cmpPartition(a, b, order.by);
    if (c !== 0) return order.desc ? -c : c;
    return cmpPartition(a, b, 'partition');
  });
}

/** A click on a column's header: that column, largest first for figures, A-Z for names; again: the other way. */
export function nextSort<S extends string>(current: { by: S; desc: boolean }, by: S, names: readonly S[]): { by: S; desc: boolean } {
  if (current.by === by) return { by, desc: !current.desc };
  return { by, desc: !names.includes(by) };
}

/** What a commit's standing means, in words (empty for an ordinary one). */
export function standingWords(s: CommitStanding, p: ClusterGroupPartition): string {
  switch (s) {
    case 'within':
      return '';
    case 'none':
      return 'never committed: the group starts where its reset policy says';
    case 'behind_start':
      return `committed ${p.committed} is below the first offset still there (${p.low}): the records between were deleted before the group read them`;
    case 'past_end':
      return `committed ${p.committed} is past the end (${p.end}): the partition was truncated or made again, and records written up to ${p.committed} will be skipped`;
    case 'unknown':
      return 'the partition’s offsets could not be read (its topic deleted?)';
  }
}

/** A member's assignment in one line: `orders 0-2, 5 · clicks 1`; what the broker does not say, said so. */
export function assignmentText(a: { topic: string; partitions: number[] }[] | null): string {
  if (a === null) return 'not told by the broker';
  if (a.length === 0) return 'nothing';
  return a.map((t) => `${t.topic} ${ranges(t.partitions)}`).join(' · ');
}

/** `[0,1,2,5,7,8]` as `0-2, 5, 7-8`. */
export function ranges(ps: readonly number[]): string {
  const sorted = [...ps].sort((a, b) => a - b);
  const out: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    out.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}
