// A topic's partitions as the Partitions tab sorts and sums them: counts stay
// BigInt (offsets are u64), times are the newest message's own timestamp.

import type { PartitionDetail } from '../backend';

export type PartSortKey = 'partition' | 'messages' | 'bytes' | 'last';
export type PartSort = { key: PartSortKey; desc: boolean };

export const messagesOf = (p: PartitionDetail): bigint => BigInt(p.end) - BigInt(p.start);

function cmp(a: PartitionDetail, b: PartitionDetail, key: PartSortKey): number {
  switch (key) {
    case 'partition':
      return a.partition - b.partition;
    case 'messages': {
      const d = messagesOf(a) - messagesOf(b);
      return d < 0n ? -1 : d > 0n ? 1 : 0;
    }
    case 'bytes': {
      const d = BigInt(a.bytes) - BigInt(b.bytes);
      return d < 0n ? -1 : d > 0n ? 1 : 0;
    }
    case 'last':
      // Partitions without a message sort as the oldest.
      return (a.last_message ?? -Infinity) - (b.last_message ?? -Infinity) || 0;
  }
}

/** A sorted copy; ties keep partition order whichever way the sort goes. */
export function sortPartitions(parts: readonly PartitionDetail[], sort: PartSort): PartitionDetail[] {
  return [...parts].sort((a, b) => (sort.desc ? -cmp(a, b, sort.key) : cmp(a, b, sort.key)) || a.partition - b.partition);
}

/** Clicking a column: the same one flips its direction; a new one starts with the most interesting end first. */
export function nextSort(cur: PartSort, key: PartSortKey): PartSort {
  if (cur.key === key) return { key, desc: !cur.desc };
  return { key, desc: key !== 'partition' };
}

export type PartSummary = {
  partitions: number;
  messages: bigint;
  bytes: bigint;
  files: number;
  /** Partitions holding no message. */
  empty: number;
  min: { partition: number; messages: bigint } | null;
  max: { partition: number; messages: bigint } | null;
  /** The fullest partition against the mean (1 = even); null when there is no message. */
  skew: number | null;
  /** The newest message's timestamp over all partitions. */
  lastMessage: number | null;
};

export function summarize(parts: readonly PartitionDetail[]): PartSummary {
  let messages = 0n;
  let bytes = 0n;
  let files = 0;
  let empty = 0;
  let min: PartSummary['min'] = null;
  let max: PartSummary['max'] = null;
  let lastMessage: number | null = null;
  for (const p of parts) {
    const m = messagesOf(p);
    messages += m;
    bytes += BigInt(p.bytes);
    files += p.files.length;
    if (m === 0n) empty++;
    if (min === null || m < min.messages) min = { partition: p.partition, messages: m };
    if (max === null || m > max.messages) max = { partition: p.partition, messages: m };
    if (p.last_message !== null && (lastMessage === null || p.last_message > lastMessage)) lastMessage = p.last_message;
  }
  // max / mean = max * n / total, in BigInt then to a number with 2 decimals.
  const skew = max && messages > 0n ? Number((max.messages * BigInt(parts.length) * 100n) / messages) / 100 : null;
  return { partitions: parts.length, messages, bytes, files, empty, min, max, skew, lastMessage };
}
