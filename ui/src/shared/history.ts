// Histories kept while the app is open (not saved): a topic's message count, for
// its throughput, and a group's lag, for the lag-over-time chart. Counts stay BigInt.

export type CountSample = { t: number; count: bigint };
export type LagSample = { t: number; total: bigint; partitions: bigint[] };

const MAX_SAMPLES = 720;
/** With live updates, a change reaches a refresh within this long (watcher latency plus refresh spacing, with room). */
const LIVE_SPAN_MS = 1000;

/** Message counts of one topic over time, sampled at each store refresh. */
export class RateHistory {
  samples: CountSample[] = [];

  add(t: number, count: bigint): void {
    const last = this.samples[this.samples.length - 1];
    if (last && t <= last.t) {
      last.count = count;
      return;
    }
    this.samples.push({ t, count });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }

  /**
   * When the growth between two samples happened. With `live` (the folder is watched, and
   * every change brings a refresh within a fraction of a second) a long gap between samples
   * was a quiet spell: what arrived came in the last LIVE_SPAN_MS before the later sample.
   * Otherwise (samples only on a manual refresh) it is spread over the whole gap.
   */
  private spans(live: boolean): { from: number; to: number; grew: number }[] {
    const out: { from: number; to: number; grew: number }[] = [];
    for (let i = 1; i < this.samples.length; i++) {
      const a = this.samples[i - 1];
      const b = this.samples[i];
      // A drop: the topic was deleted and made again; what came before was another topic.
      if (b.count < a.count) out.length = 0;
      if (b.count <= a.count) continue;
      out.push({ from: live ? Math.max(a.t, b.t - LIVE_SPAN_MS) : a.t, to: b.t, grew: Number(b.count - a.count) });
    }
    return out;
  }

  /**
   * Messages a second over the last `windowS` seconds before `now` (ms). Counts
   * only grow between samples; a drop (a deleted topic recreated) starts afresh.
   */
  current(now: number, windowS = 5, live = false): number {
    const s = this.samples;
    if (s.length < 2) return 0;
    const from = now - windowS * 1000;
    let grew = 0;
    for (const x of this.spans(live)) {
      const lo = Math.max(x.from, from);
      const hi = Math.min(x.to, now);
      if (hi <= lo) continue;
      grew += x.to > x.from ? (x.grew * (hi - lo)) / (x.to - x.from) : x.grew;
    }
    const span = Math.max(1, now - Math.max(from, s[0].t)) / 1000;
    return grew / span;
  }

  /**
   * Messages a second in each of the last `n` whole seconds before `now` (oldest
   * first). What arrived between two samples is spread over the seconds it arrived in
   * (see `spans`).
   */
  perSecond(now: number, n = 60, live = false): number[] {
    const out = new Array<number>(n).fill(0);
    const end = Math.floor(now / 1000);
    const first = end - n + 1;
    for (const x of this.spans(live)) {
      const s0 = Math.floor(x.from / 1000) + (live ? 0 : 1);
      const s1 = Math.max(s0, Math.floor(x.to / 1000));
      const each = x.grew / (s1 - s0 + 1);
      for (let sec = Math.max(s0, first); sec <= Math.min(s1, end); sec++) out[sec - first] += each;
    }
    return out;
  }
}

/** A group's lag over time, sampled each time its view refreshes. */
export class LagHistory {
  samples: LagSample[] = [];

  add(s: LagSample): void {
    const last = this.samples[this.samples.length - 1];
    if (last && s.t <= last.t) this.samples[this.samples.length - 1] = s;
    else this.samples.push(s);
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }
}

const rates = new Map<string, RateHistory>();
const lags = new Map<string, LagHistory>();

export function rateHistory(key: string): RateHistory {
  let h = rates.get(key);
  if (!h) rates.set(key, (h = new RateHistory()));
  return h;
}

export function lagHistory(key: string): LagHistory {
  let h = lags.get(key);
  if (!h) lags.set(key, (h = new LagHistory()));
  return h;
}

/** Forget everything (another store opened, or the store closed). */
export function clearHistories(): void {
  rates.clear();
  lags.clear();
}
