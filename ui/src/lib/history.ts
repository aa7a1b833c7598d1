// Histories kept while the app is open (not saved): a topic's message count, for
// its throughput, and a group's lag, for the lag-over-time chart. Counts stay BigInt.

export type CountSample = { t: number; count: bigint };
export type LagSample = { t: number; total: bigint; partitions: bigint[] };

const MAX_SAMPLES = 720;

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
   * Messages a second over the last `windowS` seconds before `now` (ms). Counts
   * only grow between samples; a drop (a deleted topic recreated) counts as 0.
   */
  current(now: number, windowS = 5): number {
    const s = this.samples;
    if (s.length < 2) return 0;
    const last = s[s.length - 1];
    const from = now - windowS * 1000;
    // The newest sample at or before the window's start (else the oldest).
    let base = s[0];
    for (const x of s) {
      if (x.t <= from) base = x;
      else break;
    }
    if (base === last) return 0;
    const grew = last.count > base.count ? last.count - base.count : 0n;
    const span = Math.max(1, now - base.t) / 1000;
    return Number(grew) / span;
  }

  /**
   * Messages a second in each of the last `n` whole seconds before `now` (oldest
   * first). What arrived between two samples is spread over the seconds between them.
   */
  perSecond(now: number, n = 60): number[] {
    const out = new Array<number>(n).fill(0);
    const end = Math.floor(now / 1000);
    const first = end - n + 1;
    for (let i = 1; i < this.samples.length; i++) {
      const a = this.samples[i - 1];
      const b = this.samples[i];
      if (b.count <= a.count) continue;
      const grew = Number(b.count - a.count);
      const s0 = Math.floor(a.t / 1000) + 1;
      const s1 = Math.max(s0, Math.floor(b.t / 1000));
      const each = grew / (s1 - s0 + 1);
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
