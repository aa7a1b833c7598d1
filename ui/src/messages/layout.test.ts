import { describe, expect, it } from 'vitest';
import { buildLayout, indexToPos, posToIndex, rangeRuns } from './layout';

const TWO_60 = 1n << 60n;

describe('row index ↔ (partition, offset)', () => {
  it('maps a 1,000,000-message partition exactly', () => {
    const l = buildLayout([{ partition: 0, start: '0', end: '1000000' }]);
    expect(l.total).toBe(1_000_000n);
    expect(indexToPos(l, 0n)).toEqual({ partition: 0, offset: 0n });
    expect(indexToPos(l, 999_999n)).toEqual({ partition: 0, offset: 999_999n });
    expect(indexToPos(l, 1_000_000n)).toBeNull();
    expect(indexToPos(l, -1n)).toBeNull();
    expect(posToIndex(l, 0, 765_432n)).toBe(765_432n);
    expect(posToIndex(l, 0, 1_000_000n)).toBeNull();
  });

  it('lays partitions end to end, with starts past 2^53 kept exact', () => {
    const l = buildLayout([
      { partition: 2, start: '0', end: '0' }, // empty, listed out of order
      { partition: 0, start: '1000', end: '1001000' }, // 1M messages from offset 1000
      { partition: 1, start: TWO_60.toString(), end: (TWO_60 + 10n).toString() },
      { partition: 3, start: '5', end: '7' },
    ]);
    expect(l.total).toBe(1_000_000n + 10n + 2n);
    expect(indexToPos(l, 0n)).toEqual({ partition: 0, offset: 1000n });
    expect(indexToPos(l, 999_999n)).toEqual({ partition: 0, offset: 1_000_999n });
    expect(indexToPos(l, 1_000_000n)).toEqual({ partition: 1, offset: TWO_60 });
    // 2^60 + 9: a JS number would round it.
    expect(indexToPos(l, 1_000_009n)).toEqual({ partition: 1, offset: TWO_60 + 9n });
    expect((TWO_60 + 9n).toString()).toBe('1152921504606846985');
    expect(indexToPos(l, 1_000_010n)).toEqual({ partition: 3, offset: 5n });
    expect(indexToPos(l, 1_000_011n)).toEqual({ partition: 3, offset: 6n });
    expect(indexToPos(l, 1_000_012n)).toBeNull();
    expect(posToIndex(l, 1, TWO_60 + 9n)).toBe(1_000_009n);
    expect(posToIndex(l, 2, 0n)).toBeNull(); // empty partition
    expect(posToIndex(l, 0, 999n)).toBeNull(); // before its start
  });

  it('round-trips every index of a sample', () => {
    const l = buildLayout([
      { partition: 0, start: '0', end: '1000000' },
      { partition: 1, start: '17', end: '5017' },
      { partition: 2, start: '0', end: '1' },
    ]);
    for (const i of [0n, 1n, 499_999n, 999_999n, 1_000_000n, 1_004_999n, 1_005_000n]) {
      const p = indexToPos(l, i)!;
      expect(posToIndex(l, p.partition, p.offset), `row ${i}`).toBe(i);
    }
  });

  it('one partition alone', () => {
    const parts = [
      { partition: 0, start: '0', end: '10' },
      { partition: 1, start: '100', end: '150' },
    ];
    const l = buildLayout(parts, 1);
    expect(l.total).toBe(50n);
    expect(indexToPos(l, 0n)).toEqual({ partition: 1, offset: 100n });
    expect(posToIndex(l, 0, 5n)).toBeNull();
  });

  it('splits a row range into runs per partition', () => {
    const l = buildLayout([
      { partition: 0, start: '0', end: '3' },
      { partition: 1, start: '10', end: '20' },
    ]);
    expect(rangeRuns(l, 1n, 5n)).toEqual([
      { partition: 0, from: 1n, to: 3n },
      { partition: 1, from: 10n, to: 13n },
    ]);
    expect(rangeRuns(l, 12n, 100n)).toEqual([{ partition: 1, from: 19n, to: 20n }]);
  });
});
