import { describe, expect, it } from 'vitest';
import { KEEP, LagHistory, sparkPoints, trend } from './lagTrend';

const at = (s: number) => 1_765_000_000_000 + s * 1000;
const samples = (pairs: [number, number][]) => pairs.map(([s, lag]) => ({ at: at(s), lag: BigInt(lag) }));

describe("a group's lag over time", () => {
  it('says when it clears at the pace of the last minute', () => {
    expect(trend([]).kind).toBe('unknown');
    expect(trend(samples([[0, 500]])).text).toBe('judging the pace…');
    // 120 s ago it was far behind; the last minute it went 600 -> 300: 5 a second, 60 s left.
    const t = trend(samples([[0, 5000], [60, 600], [90, 450], [120, 300]]));
    expect(t.kind).toBe('clearing');
    expect(t.secondsToClear).toBe(60);
    expect(t.text).toBe('clears in ~1 min (down 5/s over 1 min)');
    expect(trend(samples([[0, 10], [5, 0]])).text).toBe('caught up');
    expect(trend(samples([[0, 100], [10, 350]])).text).toBe('falling behind: up 25/s over 10 s');
    expect(trend(samples([[0, 100], [30, 100]])).text).toBe('not moving for 30 s');
  });

  it('keeps an hour a group, in order, and draws it', () => {
    const h = new LagHistory();
    for (let i = 0; i < KEEP + 10; i++) h.record([{ id: 'billing', lag: String(1000 - i) }], at(i * 5));
    h.record([{ id: 'billing', lag: '7' }], at(1)); // an answer that came late: ignored
    const kept = h.of('billing');
    expect(kept.length).toBe(KEEP);
    expect(kept[0].lag).toBe(990n);
    expect(kept.at(-1)!.lag).toBe(BigInt(1000 - (KEEP + 9)));
    expect(h.of('nope')).toEqual([]);
    // u64 lags beyond 2^53 are kept exactly.
    h.record([{ id: 'big', lag: '18446744073709551615' }], at(0));
    expect(h.of('big')[0].lag).toBe(18446744073709551615n);
    expect(sparkPoints(samples([[0, 10], [5, 5], [10, 0]]), 100, 20)).toBe('0.0,0.0 50.0,10.0 100.0,20.0');
    expect(sparkPoints(samples([[0, 10]]), 100, 20)).toBe('');
  });
});
