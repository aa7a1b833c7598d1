// A cluster group's lag over time, as this window reads it (every few seconds while the Consumer
// groups tab is shown): kept in the window's memory, an hour a group at most, and what it says:
// whether the group is catching up, and when it will have read everything at the pace of the
// last minute ("time to clear"), or falling behind, or not moving.

import { formatRate, humanDuration } from '../shared/format';

/** One reading: when (ms since the epoch) and the group's total lag then. */
export type LagSample = { at: number; lag: bigint };

/** Readings kept a group (an hour at one every 5 s). */
export const KEEP = 720;
/** The pace is judged over the readings of the last this many ms. */
export const PACE_WINDOW_MS = 60_000;
/** And only once they span at least this long. */
export const PACE_MIN_MS = 4_000;

export class LagHistory {
  private byGroup = new Map<string, LagSample[]>();

  /** Add one reading of each group (a group no longer listed keeps its past readings). */
  record(groups: { id: string; lag: string }[], at: number): void {
    for (const g of groups) {
      const list = this.byGroup.get(g.id) ?? [];
      const last = list.at(-1);
      if (last && at <= last.at) continue; // a reading out of order (a slow answer overtaken)
      list.push({ at, lag: BigInt(g.lag) });
      if (list.length > KEEP) list.splice(0, list.length - KEEP);
      this.byGroup.set(g.id, list);
    }
  }

  of(id: string): LagSample[] {
    return this.byGroup.get(id) ?? [];
  }
}

/** What the readings say, for people. */
export type Trend = {
  kind: 'unknown' | 'clear' | 'clearing' | 'growing' | 'still';
  text: string;
  /** Seconds until the lag is 0 at the recent pace, when clearing. */
  secondsToClear: number | null;
};

/** The trend of `samples` (oldest first). */
export function trend(samples: LagSample[]): Trend {
  const last = samples.at(-1);
  if (!last) return { kind: 'unknown', text: '—', secondsToClear: null };
  if (last.lag === 0n) return { kind: 'clear', text: 'caught up', secondsToClear: null };
  const recent = samples.filter((s) => s.at >= last.at - PACE_WINDOW_MS);
  const first = recent[0];
  const span = last.at - first.at;
  if (span < PACE_MIN_MS) return { kind: 'unknown', text: 'judging the pace…', secondsToClear: null };
  const perSecond = (Number(last.lag - first.lag) * 1000) / span;
  const over = humanDuration(span / 1000);
  if (perSecond < 0) {
    const secondsToClear = Number(last.lag) / -perSecond;
    return { kind: 'clearing', text: `clears in ~${humanDuration(secondsToClear)} (down ${formatRate(-perSecond)}/s over ${over})`, secondsToClear };
  }
  if (perSecond > 0) return { kind: 'growing', text: `falling behind: up ${formatRate(perSecond)}/s over ${over}`, secondsToClear: null };
  return { kind: 'still', text: `not moving for ${over}`, secondsToClear: null };
}

/** The readings as an SVG polyline's points in a `width` x `height` box (lag 0 at the bottom). */
export function sparkPoints(samples: LagSample[], width: number, height: number): string {
  if (samples.length < 2) return '';
  const t0 = samples[0].at;
  const span = Math.max(1, samples.at(-1)!.at - t0);
  const max = samples.reduce((m, s) => (s.lag > m ? s.lag : m), 0n);
  const top = max === 0n ? 1 : Number(max);
  return samples.map((s) => `${(((s.at - t0) / span) * width).toFixed(1)},${(height - (Number(s.lag) / top) * height).toFixed(1)}`).join(' ');
}
