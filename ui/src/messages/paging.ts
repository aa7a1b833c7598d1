// The Messages tab's rows by index, the pure part: which pages of which partitions a span of
// the table covers (the page cache loads them), where a grown log's tail is, how many lines
// the partitions shown hold, where rows go when the layout changes, the columns' widths, and
// the rows picked by clicks.

import type { Row, TopicDetail } from '../backend';
import { parseKeyType } from '../shared/validate';
import { indexToPos, posToIndex, type Layout } from './layout';

/** A run of offsets of one partition, `from` included, `to` not. */
export type Run = { partition: number; from: bigint; to: bigint };

/** The offsets of rows `first..first + count` of the table laid out as `l`, by partition. */
export function rangeOf(l: Layout, first: bigint, count: bigint): Run[] {
  const out: Run[] = [];
  let lo = first < 0n ? 0n : first;
  const hi = first + count > l.total ? l.total : first + count;
  while (lo < hi) {
    const p = indexToPos(l, lo);
    if (!p) break;
    const seg = l.segments.find((s) => s.partition === p.partition)!;
    const segEnd = seg.base + (seg.end - seg.start);
    const stop = segEnd < hi ? segEnd : hi;
    out.push({ partition: p.partition, from: p.offset, to: p.offset + (stop - lo) });
    lo = stop;
  }
  return out;
}

/** The row to follow in the grown layout `l`: its end, or, when only an earlier partition grew, that one's newest row. */
export function followTarget(old: Layout, l: Layout): bigint | null {
  const grew = l.segments.filter((s) => {
    const o = old.segments.find((x) => x.partition === s.partition);
    return !o || s.end > o.end;
  });
  if (l.segments.length === 0 || l.total === 0n) return null;
  const target = grew.length > 0 ? grew[grew.length - 1] : l.segments[l.segments.length - 1];
  return target.base + (target.end - target.start) - 1n;
}

/** Lines in the partitions shown (`partition`, or all when null), as described. */
export function linesShown(d: TopicDetail, partition: number | null): bigint {
  return d.partitions
    .filter((p) => partition === null || p.partition === partition)
    .reduce((a, p) => a + (BigInt(p.end) > BigInt(p.start) ? BigInt(p.end) - BigInt(p.start) : 0n), 0n);
}

/**
 * Where the table's top and selected rows go when its layout changes from `old` to `l` (live
 * growth in an earlier partition, a partition filter): to the same messages, by position
 * (null: that message is not in `l`).
 */
export function reanchor(old: Layout, l: Layout, top: bigint, selected: bigint | null): { top: bigint | null; selected: bigint | null } {
  const topPos = indexToPos(old, top);
  const selPos = selected === null ? null : indexToPos(old, selected);
  return {
    top: topPos ? posToIndex(l, topPos.partition, topPos.offset) : null,
    selected: selPos ? posToIndex(l, selPos.partition, selPos.offset) : null,
  };
}

/** The table's columns (partition, offset, time, key, payload), as wide as their values can get in `d`. */
export function columnTemplate(d: TopicDetail): string {
  const offsetCh = Math.max(7, ...d.partitions.map((p) => p.end.length)) + 1;
  const kt = parseKeyType(d.summary.key_type);
  const keyCh = !kt || kt.kind === 'free' ? 14 : kt.kind === 'int' ? { 8: 4, 16: 6, 32: 11, 64: 21 }[kt.bits] : Math.min(Math.max(kt.width, 6), 18) + 1;
  const pCh = Math.max(2, String(Math.max(0, d.partitions.length - 1)).length + 1);
  // Kind ("bytes", "typed") and size ("1023.9 KB") between the key and the payload. In a narrow
  // table (a small window with the detail pane open: 360 px) the time, the kind and the size give
  // way to the payload, never the payload to them: the payload keeps 12 characters, the time at
  // least 6, kind and size none (each cell's whole text is in its title and in the detail pane).
  // Folding the sidebar gives those columns their room back before the payload grows.
  return `${pCh + 1}ch ${offsetCh}ch minmax(6ch, 24ch) ${keyCh}ch minmax(0, 5ch) minmax(0, 9ch) minmax(12ch, 1fr)`;
}

/** A message picked for export or copy, by its place. */
export type Picked = { partition: number; offset: string };

/**
 * The rows picked after a click on row `i`: shift adds the range from the anchor (else the
 * selected row; at most `maxRange` rows, those read so far), ctrl/cmd toggles the row and
 * makes it the anchor, a plain click clears them (`plain`: the row is to be shown). `rowAt`
 * gives a row once read.
 */
export function pickAfterClick(
  picked: Map<string, Picked>,
  anchor: bigint | null,
  selected: bigint | null,
  i: bigint,
  e: Pick<MouseEvent, 'shiftKey' | 'ctrlKey' | 'metaKey'>,
  rowAt: (i: bigint) => Row | undefined,
  maxRange: bigint,
): { picked: Map<string, Picked>; anchor: bigint | null; plain: boolean } {
  const next = new Map(picked);
  const add = (k: bigint) => {
    const r = rowAt(k);
    if (r && r.row === 'message') next.set(`${r.partition}:${r.offset}`, { partition: r.partition, offset: r.offset });
  };
  if (e.shiftKey && (anchor ?? selected) !== null) {
    const a = anchor ?? selected ?? i;
    const [lo, hi] = a < i ? [a, i] : [i, a];
    for (let k = lo; k <= hi && k - lo < maxRange; k++) add(k);
    return { picked: next, anchor, plain: false };
  }
  if (e.ctrlKey || e.metaKey) {
    const r = rowAt(i);
    const k = r ? `${r.partition}:${r.offset}` : '';
    if (next.has(k)) next.delete(k);
    else add(i);
    return { picked: next, anchor: i, plain: false };
  }
  if (next.size > 0) next.clear();
  return { picked: next, anchor: i, plain: true };
}
