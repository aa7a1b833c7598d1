// The lag history chart's geometry: lines from the engine's points (values
// stay BigInt; only screen positions are floats), time-axis ticks for the
// span, and where rounds and resets sit on the axis.

import type { HistorySpan, LagHistoryDto, LagMarkKind, Offset } from '../backend';
import { formatTime, type Tz } from '../shared/format';

export type Geometry = { w: number; h: number; from: number; to: number; max: bigint };

/** A point, a mark and a history with their times known (times travel as `number | null`: a non-finite one is null). */
export type Point = { at: number; lag: string };
export type Mark = { at: number; kind: LagMarkKind; offset: Offset };
export type History = { group: string; span: HistorySpan; from: number; to: number; /** The group's first activity, when within the span. */ since: number | null; total: Point[]; partitions: { partition: number; points: Point[] }[]; marks: Mark[] };

const known = <T extends { at: number | null }>(xs: T[]): (T & { at: number })[] => xs.filter((x): x is T & { at: number } => x.at !== null && Number.isFinite(x.at));

/** The history with only points and marks of known times; null when its span is not known. */
export function cleanHistory(h: LagHistoryDto): History | null {
  if (h.from === null || h.to === null || !(h.to > h.from)) return null;
  return {
    group: h.group,
    span: h.span,
    from: h.from,
    to: h.to,
    since: h.since !== null && h.since > h.from && h.since < h.to ? h.since : null,
    total: known(h.total),
    partitions: h.partitions.map((p) => ({ partition: p.partition, points: known(p.points) })),
    marks: known(h.marks),
  };
}

/** The largest total lag of the history (the y scale's top). */
export const maxLag = (h: History): bigint => h.total.reduce((m, p) => (BigInt(p.lag) > m ? BigInt(p.lag) : m), 0n);

export const xOf = (g: Geometry, t: number): number => (g.to <= g.from ? 0 : ((t - g.from) / (g.to - g.from)) * g.w);

/** y of a lag: a BigInt ratio, so huge lags scale exactly; 18 px headroom for the top label. */
export const yOf = (g: Geometry, v: bigint): number => (g.max === 0n ? g.h - 1 : g.h - 1 - (Number((v * 100000n) / g.max) / 100000) * (g.h - 18));

/**
 * A step line through the points: each point is the lag at its bucket's end,
 * held from the previous point on (the first from the span's start).
 */
export function stepPath(g: Geometry, points: Point[]): string {
  let d = '';
  for (const [i, p] of points.entries()) {
    const py = yOf(g, BigInt(p.lag)).toFixed(1);
    if (i === 0) d += `M0,${py}`;
    else d += `V${py}`;
    d += `H${xOf(g, p.at).toFixed(1)}`;
  }
  return d;
}

/** About `n` ticks at round times within the span, labelled for its length. */
export function ticks(from: number, to: number, tz: Tz, n = 5): { at: number; label: string }[] {
  const span = to - from;
  if (!(span > 0)) return [];
  const steps = [60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 365 * 86400];
  const step = steps.find((s) => span / s <= n) ?? steps[steps.length - 1];
  // Local ticks fall on the zone's round times.
  const off = tz === 'local' ? -new Date(from * 1000).getTimezoneOffset() * 60 : 0;
  const out: { at: number; label: string }[] = [];
  for (let t = Math.ceil((from + off) / step) * step - off; t <= to; t += step) {
    const text = formatTime(t, tz);
    out.push({ at: t, label: step < 86400 ? text.slice(11, 16) : text.slice(5, 10) });
  }
  return out;
}

/** What a mark means, for its tooltip. */
export function markTitle(m: Mark, tz: Tz): string {
  const what = m.kind === 'round' ? 'a round began (members re-split the partitions)' : 'an admin commit: a reset or an import';
  return `${formatTime(m.at, tz)}: ${what} (group log offset ${m.offset})`;
}

/** The bucket under a position (0..w), for the hover readout. */
export function pointAt(g: Geometry, points: Point[], x: number): Point | null {
  if (points.length === 0) return null;
  const t = g.from + (x / g.w) * (g.to - g.from);
  return points.find((p) => p.at >= t) ?? points[points.length - 1];
}
