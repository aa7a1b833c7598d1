// The mock's topics: what the recording holds of each, with the rows tests and the
// live demo append, and the reads cut from it as the engine cuts them (pages from
// a partition's rows, raw lines, time lookups, timeline pages from the merged order).

import type { MessageRow, Offset, Page, RawLine, Result, Row, TimelineAnchor, TimelinePageDto, TopicDetail, TopicSummary } from '../api';
import { MAX_PAGE } from '../bindings';
import { copy, ok, preview, type RecordedPartition, type RecordedTimeline, type RecordedTopic } from './recording';

export type TopicState = {
  name: string;
  summary: TopicSummary;
  detail: Result<TopicDetail>;
  partitions: RecordedPartition[];
  /** Rows added by tests or the live demo, per partition index. */
  appended: Row[][];
  raw: Record<string, RawLine | null>;
  times: [number, number, Offset | null][];
  groups: Result<string[]>;
  fields: Result<string[]>;
  timeline: RecordedTimeline | null;
  /** [partition, offset] of rows appended, in the order they came (the timeline's newest). */
  appendedOrder: [number, Offset][];
};

export function topicState(name: string, rec: RecordedTopic, summary: TopicSummary): TopicState {
  const detail = copy(rec.detail);
  return {
    name,
    summary: copy(summary),
    detail,
    partitions: rec.partitions,
    appended: detail.status === 'ok' ? detail.data.partitions.map(() => []) : [],
    raw: rec.raw_lines,
    times: rec.times,
    groups: rec.groups,
    fields: rec.fields ?? { status: 'ok', data: [] },
    timeline: rec.timeline ?? null,
    appendedOrder: [],
  };
}

export function topicSummary(t: TopicState): TopicSummary {
  if (t.summary.error !== null) return copy(t.summary);
  const added = t.appended.reduce((n, rows) => n + rows.length, 0);
  let last = t.summary.last_message;
  for (const rows of t.appended) {
    const r = rows[rows.length - 1];
    if (r?.row === 'message' && r.timestamp !== null && (last === null || r.timestamp > last)) last = r.timestamp;
  }
  // Appending writes the files now, and a message stamped by its producer.
  const fileNow = added > 0 ? Date.now() / 1000 : t.summary.last_write;
  return { ...copy(t.summary), messages: (BigInt(t.summary.messages) + BigInt(added)).toString(), last_write: fileNow, last_message: last };
}
/** A partition's end: recorded, plus the rows appended to it. */
export function partitionEnd(t: TopicState, index: number): bigint {
  return BigInt(t.partitions[index]?.end ?? '0') + BigInt(t.appended[index]?.length ?? 0);
}
export function topicDetail(t: TopicState): Result<TopicDetail> {
  if (t.detail.status === 'error') return copy(t.detail);
  const d = copy(t.detail.data);
  return ok({ ...d, summary: topicSummary(t), partitions: d.partitions.map((p, i) => ({ ...p, end: partitionEnd(t, i).toString() })) });
}
export function pageOf(t: TopicState, partition: number, from: Offset, limit: number): Result<Page> {
  const d = topicDetail(t);
  if (d.status === 'error') return d;
  const index = d.data.partitions.findIndex((p) => p.partition === partition);
  if (index < 0) return preview(`partition ${partition} of ${name}`);
  // As the engine reads: from the partition's start at the earliest, at most MAX_PAGE rows.
  const start = BigInt(d.data.partitions[index].start);
  const at = BigInt(from) < start ? start : BigInt(from);
  const n = Math.max(1, Math.min(MAX_PAGE, limit));
  const all = (t.partitions[index]?.rows ?? []).concat(t.appended[index] ?? []);
  const rows = copy(all.slice(Number(at - start), Number(at - start) + n));
  const next = rows.length > 0 ? (BigInt(rows[rows.length - 1].offset) + 1n).toString() : at.toString();
  return ok({ partition, rows, next, end: partitionEnd(t, index).toString(), incarnation: d.data.incarnation });
}
export function rawLineOf(t: TopicState, partition: number, offset: Offset): Result<RawLine | null> {
  const key = `${partition}:${offset}`;
  if (key in t.raw) return ok(copy(t.raw[key]));
  const index = t.partitions.findIndex((p) => p.partition === partition);
  if (index >= 0 && BigInt(offset) >= partitionEnd(t, index)) return ok(null); // no line there, as the engine says
  return preview(`the raw line at ${name} ${key}`);
}
export function offsetAtTimeOf(t: TopicState, partition: number, unix: number): Result<Offset | null> {
  // The recorded lookup of the next sampled time (past the last message: none).
  const samples = t.times.filter(([p]) => p === partition).sort((a, b) => a[1] - b[1]);
  const next = samples.find(([, at]) => at >= unix) ?? samples[samples.length - 1];
  return next ? ok(next[2]) : preview(`a time lookup in ${name} P${partition}`);
}
/** The timeline's order (recorded, then rows appended since), of some partitions. */
function timelineOrder(t: TopicState, partitions: number[] | null): { parts: number[]; order: [number, bigint][]; first: bigint[]; ends: bigint[] } | null {
  const rec = t.timeline;
  const d = topicDetail(t);
  if (d.status === 'error') return null;
  const all = rec ? rec.partitions : d.data.partitions.map((p) => p.partition);
  const parts = partitions ?? all;
  const keep = new Set(parts);
  const recorded: [number, Offset][] = rec ? rec.order : (d.data.partitions[0] ? (t.partitions[0]?.rows ?? []).map((r): [number, Offset] => [r.partition, r.offset]) : []);
  const order = recorded
    .concat(t.appendedOrder)
    .filter(([p]) => keep.has(p))
    .map(([p, o]): [number, bigint] => [p, BigInt(o)]);
  const index = (p: number) => d.data.partitions.findIndex((x) => x.partition === p);
  const first = parts.map((p) => BigInt(d.data.partitions[index(p)]?.start ?? '0'));
  const ends = parts.map((p) => partitionEnd(t, index(p)));
  return { parts, order, first, ends };
}
function messageAt(t: TopicState, partition: number, offset: bigint): MessageRow | null {
  const d = topicDetail(t);
  if (d.status === 'error') return null;
  const i = d.data.partitions.findIndex((p) => p.partition === partition);
  const start = BigInt(d.data.partitions[i]?.start ?? '0');
  const all = (t.partitions[i]?.rows ?? []).concat(t.appended[i] ?? []);
  const r = all[Number(offset - start)];
  return r && r.row === 'message' ? (({ row: _r, ...m }) => m)(r) : null;
}
export function timelinePageOf(t: TopicState, partitions: number[] | null, dir: 'before' | 'after', anchor: TimelineAnchor | Offset[] | null, limit: number): Result<TimelinePageDto> {
  const tl = timelineOrder(t, partitions);
  if (!tl) return preview(`the timeline of ${name}`);
  const { parts, order, first, ends } = tl;
  const n = Math.max(0, Math.min(MAX_PAGE, limit));
  // The cut with k messages before it, and the place of a cut in the order.
  const cutAt = (k: number): bigint[] =>
    parts.map((p, i) => {
      const next = order.slice(k).find(([q]) => q === p);
      return next ? next[1] : ends[i];
    });
  const indexOf = (cut: bigint[]): number => order.filter(([p, o]) => o < cut[parts.indexOf(p)]).length;
  let k: number;
  if (dir === 'before') k = anchor === null ? order.length : indexOf((anchor as Offset[]).map((o) => BigInt(o)));
  else {
    const a = anchor as TimelineAnchor;
    if (a.at === 'start') k = 0;
    else if (a.at === 'end') k = order.length;
    else if (a.at === 'at') k = indexOf(a.offsets.map((o) => BigInt(o)));
    else if (a.at === 'index') k = Math.min(order.length, Number(a.index));
    else {
      const rec = t.timeline;
      const times = [...(rec?.times ?? [])].sort((x, y) => x[0] - y[0]);
      const next = times.find(([at]) => at >= (a.unix ?? 0)) ?? times[times.length - 1];
      k = next ? indexOf(next[1].map((o) => BigInt(o))) : 0;
    }
  }
  const [lo, hi] = dir === 'before' ? [Math.max(0, k - n), k] : [k, Math.min(order.length, k + n)];
  const rows = order.slice(lo, hi).flatMap(([p, o]) => {
    const r = messageAt(t, p, o);
    return r ? [copy(r)] : [];
  });
  const begin = cutAt(lo);
  const end = cutAt(hi);
  const sum = (a: bigint[], b: bigint[]) => a.reduce((acc, x, i) => acc + (x - b[i]), 0n);
  const d = topicDetail(t);
  return ok({
    partitions: parts,
    rows,
    begin: begin.map(String),
    end: end.map(String),
    first: first.map(String),
    base: sum(begin, first).toString(),
    total: sum(ends, first).toString(),
    incarnation: d.status === 'ok' ? d.data.incarnation : null,
  });
}