import { describe, expect, it } from 'vitest';
import { MAX_PAGES, PAGE, PageCache } from './pageCache';
import { MockStore } from '../backend/mock';
import type { Page, Result, Row } from '../backend';

/**
 * Pages of a partition of `end` lines as a backend cuts them, for the cache's own
 * rules (which pages, how many, how long kept): the recorded store has no
 * million-line topic, and the cache does not care what the rows say.
 */
function pagesOf(end: bigint) {
  return async (_t: string, p: number, from: string, limit: number): Promise<Result<Page>> => {
    const first = BigInt(from);
    const stop = first + BigInt(limit) < end ? first + BigInt(limit) : end;
    const rows: Row[] = [];
    for (let o = first; o < stop; o++) rows.push({ row: 'damaged', partition: p, offset: o.toString(), file: 'f', line: (o + 1n).toString(), problem: 'x' });
    return { status: 'ok', data: { partition: p, rows, next: (stop > first ? stop : first).toString(), end: end.toString(), incarnation: null } };
  };
}

describe('the page cache', () => {
  it('reads only the pages asked for, aligned, never more than 500 rows at once, and keeps a bounded number', async () => {
    const read = pagesOf(1_000_000n);
    const reads: [number, string, number][] = [];
    let changes = 0;
    const cache = new PageCache('big', (t, p, from, limit) => {
      reads.push([p, from, limit]);
      return read(t, p, from, limit);
    }, () => changes++);
    cache.setStarts([{ partition: 0, start: '0' }]);
    cache.want([{ partition: 0, from: 999_990n, to: 1_000_000n }]);
    await new Promise((r) => setTimeout(r, 10));
    expect(reads).toEqual([[0, '999500', PAGE]]);
    const row = cache.get(0, 999_999n);
    expect(row?.offset).toBe('999999');
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
    // The fixture's sensors P1 starts at 10 (its first file is gone).
    cache.setStarts([{ partition: 1, start: '10' }]);
    cache.want([{ partition: 1, from: 10n, to: 20n }]);
    await new Promise((r) => setTimeout(r, 10));
    expect(reads).toEqual(['1:10+490']); // to the end of the page that starts at 0
    expect(cache.get(1, 10n)?.offset).toBe('10');
  });
});

describe('loading ahead of a move', () => {
  it('load() reads the missing pages before queued ones, resolves when they are in, and reads nothing twice', async () => {
    const read = pagesOf(1_000_000n);
    const reads: string[] = [];
    const cache = new PageCache('big', (t, p, from, limit) => {
      reads.push(`${p}:${from}`);
      return read(t, p, from, limit);
    }, () => {});
    cache.setStarts([{ partition: 0, start: '0' }]);
    // A queue of wanted pages, then a load that must go first and survive the next want().
    cache.want([{ partition: 0, from: 0n, to: 5000n }]);
    const loaded = cache.load([{ partition: 0, from: 900_100n, to: 900_700n }]);
    cache.want([{ partition: 0, from: 10_000n, to: 10_010n }]);
    await loaded;
    expect(cache.get(0, 900_100n)).toBeDefined();
    expect(cache.get(0, 900_699n)).toBeDefined();
    expect(reads.indexOf('0:900000')).toBeLessThan(reads.indexOf('0:10000') === -1 ? Infinity : reads.indexOf('0:10000'));
    const n = reads.length;
    await cache.load([{ partition: 0, from: 900_200n, to: 900_300n }]);
    expect(reads.length).toBe(n);
  });

  it('reads a partial page again when the log grew while it was read; clear() releases waiters', async () => {
    const pending: { from: string; resolve: (r: Result<Page>) => void }[] = [];
    const cache = new PageCache('t', (_t, _p, from) => new Promise((resolve) => pending.push({ from, resolve })), () => {});
    const page = (n: number, first = 0): Result<Page> => ({
      status: 'ok',
      data: {
        partition: 0,
        rows: Array.from({ length: n }, (_, i) => ({ row: 'damaged', partition: 0, offset: String(first + i), file: 'f', line: String(first + i + 1), problem: 'x' })),
        next: String(first + n),
        end: String(first + n),
        incarnation: null,
      },
    });
    let loaded = false;
    void cache.load([{ partition: 0, from: 0n, to: 10n }]).then(() => (loaded = true));
    expect(pending).toHaveLength(1);
    cache.invalidateTail(); // the partition grew while the tail page was read
    pending[0].resolve(page(5));
    await new Promise((r) => setTimeout(r, 0));
    expect(loaded).toBe(false);
    expect(pending).toHaveLength(2); // read again
    pending[1].resolve(page(8));
    await new Promise((r) => setTimeout(r, 0));
    expect(loaded).toBe(true);
    expect(cache.get(0, 7n)).toBeDefined();
    // A full page read across a change is kept as it is.
    cache.want([{ partition: 0, from: 500n, to: 510n }]);
    cache.invalidateTail();
    pending[2].resolve(page(500, 500));
    await new Promise((r) => setTimeout(r, 0));
    expect(pending).toHaveLength(3);
    expect(cache.get(0, 999n)).toBeDefined();
    let released = false;
    void cache.load([{ partition: 0, from: 5000n, to: 5010n }]).then(() => (released = true));
    cache.clear();
    await new Promise((r) => setTimeout(r, 0));
    expect(released).toBe(true);
  });

  it('keeps showing a partial page while it is read again after the log grew', async () => {
    const pending: { from: string; resolve: (r: Result<Page>) => void }[] = [];
    const cache = new PageCache('t', (_t, _p, from) => new Promise((resolve) => pending.push({ from, resolve })), () => {});
    const page = (n: number): Result<Page> => ({
      status: 'ok',
      data: { partition: 0, rows: Array.from({ length: n }, (_, i) => ({ row: 'damaged', partition: 0, offset: String(i), file: 'f', line: String(i + 1), problem: 'x' })), next: String(n), end: String(n), incarnation: null },
    });
    cache.want([{ partition: 0, from: 0n, to: 30n }]);
    pending[0].resolve(page(20));
    await new Promise((r) => setTimeout(r, 0));
    cache.invalidateTail();
    expect(cache.get(0, 19n)).toBeDefined(); // still shown
    cache.want([{ partition: 0, from: 0n, to: 30n }]);
    expect(pending).toHaveLength(2); // and read again
    pending[1].resolve(page(30));
    await new Promise((r) => setTimeout(r, 0));
    expect(cache.get(0, 29n)).toBeDefined();
  });
});

describe('a topic deleted and made again', () => {
  it('keeps no page of another incarnation, and says the topic was replaced or is gone', async () => {
    const store = new MockStore({ open: true });
    const b = store.backend();
    const first = await b.describeTopic('chat');
    if (first.status !== 'ok') throw new Error('describe');
    let replaced = 0;
    const cache = new PageCache('chat', b.readPage, () => {}, first.data.incarnation, () => replaced++);
    cache.setStarts(first.data.partitions);
    await cache.load([{ partition: 0, from: 0n, to: 30n }]);
    expect(cache.get(0, 3n)).toBeDefined();
    expect(replaced).toBe(0);
    // Another process deletes chat and makes it again, with 3 partitions of new messages.
    store.replaceExternally('chat', true);
    let done = false;
    void cache.load([{ partition: 1, from: 0n, to: 30n }]).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(true); // the wait ends: that page will not come
    expect(cache.get(1, 3n)).toBeUndefined(); // the new topic's row is not shown as the old one's
    expect(replaced).toBe(1);
    // Deleted for good: the read fails, and the view is told.
    store.replaceExternally('chat');
    await cache.load([{ partition: 0, from: 500n, to: 510n }]);
    expect(cache.errorAt(0, 500n)).toMatch(/does not exist/);
    expect(replaced).toBe(2);
  });
});

describe('a tail that grows faster than a page is read', () => {
  /**
   * Following a log written at 2,000 msg/s froze. Each tail read found the
   * partition grown since it started (a describe had come in meanwhile), was dropped and read
   * again, and a load() waiting for the followed rows never returned. The rows it asked for
   * were in every one of those reads.
   */
  it('answers a load() whose rows were read, however often the log grew meanwhile', async () => {
    let end = 100n;
    let reads = 0;
    let cache: PageCache;
    const read = async (_t: string, p: number, from: string, limit: number): Promise<Result<Page>> => {
      reads++;
      const first = BigInt(from);
      const stop = first + BigInt(limit) < end ? first + BigInt(limit) : end;
      // The writer goes on while this is read: the log grows and a describe invalidates the tail.
      await new Promise((r) => setTimeout(r, 2));
      end += 10n;
      cache.invalidateTail();
      const rows: Row[] = [];
      for (let o = first; o < stop; o++) rows.push({ row: 'damaged', partition: p, offset: o.toString(), file: 'f', line: (o + 1n).toString(), problem: 'x' });
      return { status: 'ok', data: { partition: p, rows, next: stop.toString(), end: end.toString(), incarnation: null } };
    };
    cache = new PageCache('busy', read, () => {});
    cache.setStarts([{ partition: 0, start: '0' }]);
    let loaded = false;
    void cache.load([{ partition: 0, from: 60n, to: 100n }]).then(() => (loaded = true));
    for (let i = 0; i < 50 && !loaded; i++) await new Promise((r) => setTimeout(r, 5));
    expect(loaded).toBe(true);
    expect(reads).toBeLessThan(5);
    expect(cache.get(0, 99n)?.offset).toBe('99');
  });
});
