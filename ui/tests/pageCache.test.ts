import { describe, expect, it } from 'vitest';
import { MAX_PAGES, PAGE, PageCache } from '../src/lib/pageCache';
import { MockStore } from '../src/lib/mockBackend';

describe('the page cache', () => {
  it('reads only the pages asked for, aligned, never more than 500 rows at once, and keeps a bounded number', async () => {
    const store = new MockStore({ open: true });
    const b = store.backend();
    const reads: [number, string, number][] = [];
    let changes = 0;
    const cache = new PageCache('firehose', (t, p, from, limit) => {
      reads.push([p, from, limit]);
      return b.readPage(t, p, from, limit);
    }, () => changes++);
    cache.setStarts([{ partition: 0, start: '0' }]);
    cache.want([{ partition: 0, from: 999_990n, to: 1_000_000n }]);
    await new Promise((r) => setTimeout(r, 10));
    expect(reads).toEqual([[0, '999500', PAGE]]);
    const row = cache.get(0, 999_999n);
    expect(row?.row === 'message' && row.offset).toBe('999999');
    expect(changes).toBe(1);
    // Already cached: no new read.
    cache.want([{ partition: 0, from: 999_990n, to: 1_000_000n }]);
    await new Promise((r) => setTimeout(r, 10));
    expect(reads.length).toBe(1);
    // Scroll through many pages: the cache stays bounded.
    for (let i = 0n; i < BigInt(MAX_PAGES + 20); i++) {
      cache.want([{ partition: 0, from: i * 500n, to: i * 500n + 10n }]);
      await new Promise((r) => setTimeout(r, 0));
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(cache.stats().pages).toBeLessThanOrEqual(MAX_PAGES);
    expect(reads.every(([, , limit]) => limit <= 500)).toBe(true);
  });

  it('does not start a page before the partition start', async () => {
    const store = new MockStore({ open: true });
    const reads: string[] = [];
    const cache = new PageCache('sensors', (t, p, from, limit) => {
      reads.push(`${p}:${from}+${limit}`);
      return store.backend().readPage(t, p, from, limit);
    }, () => {});
    cache.setStarts([{ partition: 1, start: '1000' }]);
    cache.want([{ partition: 1, from: 1000n, to: 1010n }]);
    await new Promise((r) => setTimeout(r, 10));
    expect(reads).toEqual(['1:1000+500']);
  });
});
