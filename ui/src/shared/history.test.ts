import { describe, expect, it } from 'vitest';
import { RateHistory } from './history';

describe('throughput from sampled counts', () => {
  // Quiet for a minute (one sample), then 100 messages a second, sampled every 250 ms.
  function burst(): { h: RateHistory; now: number } {
    const h = new RateHistory();
    const t0 = 1_000_000;
    h.add(t0, 1000n);
    let t = t0 + 60_000;
    let count = 1000n;
    for (let i = 0; i < 12; i++) {
      count += 25n;
      h.add(t, count);
      t += 250;
    }
    return { h, now: t };
  }

  it('with live updates, a quiet spell before a burst does not dilute the rate', () => {
    const { h, now } = burst();
    // 3 s of 100 msg/s in a 5 s window.
    expect(h.current(now, 5, true)).toBeGreaterThan(50);
    expect(h.current(now, 5, true)).toBeLessThan(110);
    const series = h.perSecond(now, 10, true);
    expect(Math.max(...series)).toBeGreaterThan(60);
    expect(series.slice(0, 5).every((v) => v === 0)).toBe(true);
  });

  it('without them (manual refreshes), growth is spread over the whole gap', () => {
    const h = new RateHistory();
    h.add(0, 0n);
    h.add(60_000, 6000n);
    expect(h.current(60_000, 5, false)).toBeCloseTo(100, 0);
    expect(h.current(60_000, 5, true)).toBeGreaterThan(1000);
  });
});

describe('a recreated topic', () => {
  it('forgets what the topic before it wrote', () => {
    const h = new RateHistory();
    h.add(0, 0n);
    h.add(500, 61n);
    h.add(900, 60n);
    expect(h.current(1000, 5, true)).toBe(0);
    expect(h.perSecond(1000, 5, true).every((v) => v === 0)).toBe(true);
  });
});
