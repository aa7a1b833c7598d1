// Row index ↔ (partition, offset) for a table over one or all partitions.
// Rows are partition 0's offsets start..end, then partition 1's, and so on.
// Everything is BigInt: offsets and counts are u64 on disk.

export type Segment = { partition: number; start: bigint; end: bigint; base: bigint };

export type Layout = { segments: Segment[]; total: bigint };

export type Pos = { partition: number; offset: bigint };

/** Build a layout from partitions' start/end (decimal strings); `only` keeps one partition. */
export function buildLayout(
  partitions: { partition: number; start: string; end: string }[],
  only: number | null = null,
): Layout {
  const segments: Segment[] = [];
  let base = 0n;
  for (const p of [...partitions].sort((a, b) => a.partition - b.partition)) {
    if (only !== null && p.partition !== only) continue;
    const start = BigInt(p.start);
    let end = BigInt(p.end);
    if (end < start) end = start;
    segments.push({ partition: p.partition, start, end, base });
    base += end - start;
  }
  return { segments, total: base };
}

/** The segment holding row `index`, by binary search; null when out of range. */
function segmentAt(layout: Layout, index: bigint): Segment | null {
  if (index < 0n || index >= layout.total) return null;
  const s = layout.segments;
  let lo = 0;
  let hi = s.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s[mid].base <= index) lo = mid;
    else hi = mid - 1;
  }
  // Skip empty segments that share a base with the next one.
  let k = lo;
  while (k < s.length - 1 && s[k].end - s[k].start === 0n) k++;
  return s[k];
}

export function indexToPos(layout: Layout, index: bigint): Pos | null {
  const seg = segmentAt(layout, index);
  if (!seg) return null;
  return { partition: seg.partition, offset: seg.start + (index - seg.base) };
}

/** The row of (partition, offset); null when that offset is not in the layout. */
export function posToIndex(layout: Layout, partition: number, offset: bigint): bigint | null {
  const seg = layout.segments.find((s) => s.partition === partition);
  if (!seg || offset < seg.start || offset >= seg.end) return null;
  return seg.base + (offset - seg.start);
}

/** Runs of consecutive rows within one partition covering rows [first, first+count). */
export function rangeRuns(layout: Layout, first: bigint, count: bigint): { partition: number; from: bigint; to: bigint }[] {
  const runs: { partition: number; from: bigint; to: bigint }[] = [];
  if (count <= 0n) return runs;
  let lo = first < 0n ? 0n : first;
  const hi = first + count > layout.total ? layout.total : first + count;
  while (lo < hi) {
    const seg = segmentAt(layout, lo);
    if (!seg) break;
    const segEndIndex = seg.base + (seg.end - seg.start);
    const stop = segEndIndex < hi ? segEndIndex : hi;
    runs.push({ partition: seg.partition, from: seg.start + (lo - seg.base), to: seg.start + (stop - seg.base) });
    lo = stop;
  }
  return runs;
}

export const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);
export const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);
export const clampBig = (v: bigint, lo: bigint, hi: bigint): bigint => (v < lo ? lo : v > hi ? hi : v);
