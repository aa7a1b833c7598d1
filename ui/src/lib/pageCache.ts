// Pages of a topic's partitions, fetched on demand (≤ PAGE rows a request) and
// kept in a small LRU: the table asks for what is on screen, never the whole log.

import type { Page, Result, Row } from './backend';

export const PAGE = 500;
export const MAX_PAGES = 80;
const MAX_IN_FLIGHT = 3;

export type ReadPage = (topic: string, partition: number, from: string, limit: number) => Promise<Result<Page>>;

type Entry = { partition: number; pageStart: bigint; next: bigint; rows: Map<string, Row>; short: boolean; used: number };

export type CacheStats = { pages: number; rows: number; requests: number; inFlight: number };

const pageStartOf = (offset: bigint): bigint => offset - (offset % BigInt(PAGE));
const keyOf = (partition: number, pageStart: bigint) => `${partition}:${pageStart}`;

export class PageCache {
  private pages = new Map<string, Entry>();
  private errors = new Map<string, string>();
  private inFlight = new Set<string>();
  private queue: { partition: number; pageStart: bigint }[] = [];
  private starts = new Map<number, bigint>();
  private epoch = 0;
  private tick = 0;
  requests = 0;

  constructor(
    readonly topic: string,
    private read: ReadPage,
    private onChange: () => void,
  ) {}

  /** Partition start offsets, so no request starts before a partition's first line. */
  setStarts(partitions: { partition: number; start: string }[]): void {
    this.starts = new Map(partitions.map((p) => [p.partition, BigInt(p.start)]));
  }

  /** The row at (partition, offset); undefined while not loaded. */
  get(partition: number, offset: bigint): Row | undefined {
    const e = this.pages.get(keyOf(partition, pageStartOf(offset)));
    if (!e) return undefined;
    e.used = ++this.tick;
    return e.rows.get(offset.toString());
  }

  /** The error of the page holding (partition, offset), if its read failed. */
  errorAt(partition: number, offset: bigint): string | undefined {
    return this.errors.get(keyOf(partition, pageStartOf(offset)));
  }

  /** Load the pages covering these runs of offsets (first run first); other queued pages are dropped. */
  want(runs: { partition: number; from: bigint; to: bigint }[]): void {
    const queue: { partition: number; pageStart: bigint }[] = [];
    for (const r of runs) {
      if (r.to <= r.from) continue;
      for (let ps = pageStartOf(r.from); ps < r.to; ps += BigInt(PAGE)) {
        const k = keyOf(r.partition, ps);
        const e = this.pages.get(k);
        if (e) {
          e.used = ++this.tick;
          continue;
        }
        if (this.inFlight.has(k) || this.errors.has(k)) continue;
        queue.push({ partition: r.partition, pageStart: ps });
      }
    }
    this.queue = queue;
    this.pump();
  }

  /**
   * The log changed: forget pages that ended before a page boundary (the
   * partition's tail, which may have grown) and failed reads. Full pages stay.
   */
  invalidateTail(): void {
    for (const [k, e] of this.pages) if (e.short) this.pages.delete(k);
    this.errors.clear();
    this.epoch++;
    this.inFlight.clear();
  }

  /** Forget everything (a partition was rewritten, the topic recreated). */
  clear(): void {
    this.pages.clear();
    this.errors.clear();
    this.queue = [];
    this.inFlight.clear();
    this.epoch++;
  }

  stats(): CacheStats {
    let rows = 0;
    for (const e of this.pages.values()) rows += e.rows.size;
    return { pages: this.pages.size, rows, requests: this.requests, inFlight: this.inFlight.size };
  }

  private pump(): void {
    while (this.inFlight.size < MAX_IN_FLIGHT && this.queue.length > 0) {
      const { partition, pageStart } = this.queue.shift()!;
      const k = keyOf(partition, pageStart);
      if (this.pages.has(k) || this.inFlight.has(k)) continue;
      this.inFlight.add(k);
      void this.fetch(partition, pageStart, k);
    }
  }

  private async fetch(partition: number, pageStart: bigint, k: string): Promise<void> {
    const epoch = this.epoch;
    const start = this.starts.get(partition) ?? 0n;
    const from = pageStart > start ? pageStart : start;
    const limit = Number(pageStart + BigInt(PAGE) - from);
    this.requests++;
    let res: Result<Page>;
    try {
      res = await this.read(this.topic, partition, from.toString(), limit);
    } catch (e) {
      res = { status: 'error', error: { code: 'ipc', message: String(e) } };
    }
    if (epoch !== this.epoch) return; // invalidated meanwhile: the next want() asks again
    this.inFlight.delete(k);
    if (res.status === 'ok') {
      const rows = new Map<string, Row>();
      for (const r of res.data.rows) rows.set(r.offset, r);
      const next = BigInt(res.data.next);
      this.pages.set(k, { partition, pageStart, next, rows, short: next < pageStart + BigInt(PAGE), used: ++this.tick });
      this.evict();
    } else {
      this.errors.set(k, res.error.message);
    }
    this.onChange();
    this.pump();
  }

  private evict(): void {
    if (this.pages.size <= MAX_PAGES) return;
    const byAge = [...this.pages.entries()].sort((a, b) => a[1].used - b[1].used);
    for (const [k] of byAge.slice(0, this.pages.size - MAX_PAGES)) this.pages.delete(k);
  }
}
