// Helpers for group views: member labels, where a group resumes, countdowns.

import type { DemoMember, GroupDetail, MemberDto, PartitionProgressDto, RoundDto } from '../backend';

/** "m3"; 0 is the key of records written from outside the group (the app, the CLI, a reset). */
export const memberShort = (id: number): string => (id === 0 ? 'outside' : `m${id}`);

/** What a member is to this app. */
export type MemberKind = { kind: 'demo'; demo: DemoMember } | { kind: 'external' };

export function memberKinds(members: MemberDto[], demos: DemoMember[]): Map<number, MemberKind> {
  const out = new Map<number, MemberKind>();
  for (const m of members) {
    const d = demos.find((x) => x.member_id === m.id);
    out.set(m.id, d ? { kind: 'demo', demo: d } : { kind: 'external' });
  }
  return out;
}

/** A demo member that no longer runs (its partitions stay in the log until the next round). */
export const demoGone = (d: DemoMember): boolean => d.status !== 'running' && d.status !== 'joining';

/**
 * Where the group resumes in a partition: the commit; "-1" means the end when
 * a member takes it; no commit means the partition's start (here: 0).
 */
export function resumeAt(p: { committed: string | null; end: string }): bigint {
  if (p.committed === null) return 0n;
  const c = BigInt(p.committed);
  return c < 0n ? BigInt(p.end) : c;
}

export function totalLag(parts: PartitionProgressDto[]): bigint {
  return parts.reduce((s, p) => s + BigInt(p.lag), 0n);
}

/** Seconds until a round's window closes, on the backend's clock (negative: closed). */
export function roundRemaining(r: RoundDto, d: GroupDetail, fetchedAtMs: number, nowMs: number): number | null {
  if (r.ends_at === null) return null;
  const backendNow = (d.now ?? fetchedAtMs / 1000) + (nowMs - fetchedAtMs) / 1000;
  return r.ends_at - backendNow;
}

/** The cells of the assignment map: every partition with its owner. */
export function mapCells(d: GroupDetail): { partition: number; owner: number | null; p: PartitionProgressDto | null }[] {
  if (d.partitions.length > 0) return d.partitions.map((p) => ({ partition: p.partition, owner: p.owner, p }));
  // No known topic: what the members hold is all there is to show.
  let max = -1;
  for (const m of d.members) for (const p of m.partitions) max = Math.max(max, p);
  return Array.from({ length: max + 1 }, (_, i) => ({
    partition: i,
    owner: d.members.find((m) => m.partitions.includes(i))?.id ?? null,
    p: null,
  }));
}

/** "0-3, 5, 7-8" */
export function partitionList(ps: number[]): string {
  if (ps.length === 0) return 'none';
  const s = [...ps].sort((a, b) => a - b);
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    out.push(j - i >= 2 ? `${s[i]}–${s[j]}` : j === i ? `${s[i]}` : `${s[i]}, ${s[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** What the offsets table is sorted by. */
export type OffsetsSort = 'partition' | 'lag' | 'age' | 'owner';

/**
 * The offsets table's rows: only those with lag when `laggingOnly`, sorted by
 * `sort` (lag and age largest first, ties by partition; partition and owner
 * ascending, partitions without an owner last). Lags compare as BigInt.
 */
export function offsetRows(parts: PartitionProgressDto[], sort: OffsetsSort, laggingOnly: boolean): PartitionProgressDto[] {
  const rows = laggingOnly ? parts.filter((p) => p.lag !== '0') : [...parts];
  const byPartition = (a: PartitionProgressDto, b: PartitionProgressDto) => a.partition - b.partition;
  const cmp: Record<OffsetsSort, (a: PartitionProgressDto, b: PartitionProgressDto) => number> = {
    partition: byPartition,
    lag: (a, b) => {
      const d = BigInt(b.lag) - BigInt(a.lag);
      return d > 0n ? 1 : d < 0n ? -1 : byPartition(a, b);
    },
    // The oldest waiting message first; partitions with nothing waiting last.
    age: (a, b) => (a.oldest_unconsumed_at ?? Infinity) - (b.oldest_unconsumed_at ?? Infinity) || byPartition(a, b),
    owner: (a, b) => (a.owner ?? Infinity) - (b.owner ?? Infinity) || byPartition(a, b),
  };
  return rows.sort(cmp[sort]);
}

/** Above this many partitions the assignment map is folded to a line per member. */
export const MAP_FOLD_AT = 96;

/** Per member, how many partitions it holds and their lag; partitions held by nobody under `owner: null`, last. */
export function holdings(d: GroupDetail): { owner: number | null; count: number; lag: bigint }[] {
  const by = new Map<number | null, { owner: number | null; count: number; lag: bigint }>();
  for (const c of mapCells(d)) {
    const h = by.get(c.owner) ?? { owner: c.owner, count: 0, lag: 0n };
    h.count++;
    if (c.p) h.lag += BigInt(c.p.lag);
    by.set(c.owner, h);
  }
  return [...by.values()].sort((a, b) => (a.owner ?? Infinity) - (b.owner ?? Infinity));
}
