// Pages of a topic's partitions, fetched on demand (≤ PAGE rows a request) and
// kept in a small LRU: the table asks for what is on screen, never the whole log.

import type { Page, Result, Row } from '../backend';

export const PAGE = 500;
/** Pages kept (12,000 rows): the screen and its margins need a few; following a busy tail passes a page every few refreshes. */
export const MAX_PAGES = 24;
const MAX_IN_FLIGHT = 3;

export type ReadPage = (topic: string, partition: number, from: string, limit: number) => Promise<Result<Page>>;

/** `short`: ended before the page's last offset (a partition's tail); `stale`: short, and the log changed since (read again). */
type Entry = { partition: number; pageStart: bigint; next: bigint; rows: Map<string, Row>; short: boolean; stale: boolean; used: number };

export type CacheStats = { pages: number; rows: number; requests: number; inFlight: number };

type Run = { partition: number; from: bigint; to: bigint };
type PageRef = { partition: number; pageStart: bigint };

const pageStartOf = (offset: bigint): bigint => offset - (offset % BigInt(PAGE));
const keyOf = (partition: number, pageStart: bigint) => `${partition}:${pageStart}`;

/** The pages of these runs, each with the offset below which the run needs its rows. */
function* pagesOf(runs: Run[]): Generator<PageRef & { k: string; upTo: bigint }> {
  for (const r of runs) {
    if (r.to <= r.from) continue;
    for (let ps = pageStartOf(r.from); ps < r.to; ps += BigInt(PAGE)) {
      const end = ps + BigInt(PAGE);
      yield { partition: r.partition, pageStart: ps, k: keyOf(r.partition, ps), upTo: r.to < end ? r.to : end };
    }
  }
}

export class PageCache {
  private pages = new Map<string, Entry>();
  private errors = new Map<string, string>();
  private inFlight = new Set<string>();
  private queue: PageRef[] = [];
  /** Pages `load()` waits for: read before the `want()` queue, and never dropped by it. */
  private urgent: PageRef[] = [];
  /** `load()` calls waiting: per page, the offset below which they need its rows. */
  private waiters: { keys: Map<string, bigint>; resolve: () => void }[] = [];
  /** The pages the last `want()` covered (loaded or not). */
  private wanted = new Set<string>();
  private starts = new Map<number, bigint>();
  /** Bumped by clear(): reads started before are dropped. */
  private generation = 0;
  /** Bumped by invalidateTail(): a partial page read before may miss lines, and is read again. */
  private tailEpoch = 0;
  private tick = 0;
  requests = 0;

  /**
   * `incarnation`: the topic's (TopicDetail.incarnation) whose pages this cache
   * holds; a page of another one is of a topic deleted and made again under
   * the name, never kept beside this one's rows, and `onReplaced` is told (as
   * when a read says the topic is gone) so the view can reload. Undefined:
   * pages are not checked.
   */
  constructor(
    readonly topic: string,
    private read: ReadPage,
    private onChange: () => void,
    readonly incarnation?: string | null,
    private onReplaced?: () => void,
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
  want(runs: Run[]): void {
    const queue: PageRef[] = [];
    this.wanted = new Set();
    for (const p of pagesOf(runs)) {
      this.wanted.add(p.k);
      const e = this.pages.get(p.k);
      if (e) e.used = ++this.tick;
      if ((e && !e.stale) || this.inFlight.has(p.k) || this.errors.has(p.k)) continue;
      queue.push({ partition: p.partition, pageStart: p.pageStart });
    }
    this.queue = queue;
    this.pump();
  }

  /**
   * Load the pages covering these runs, ahead of those `want()` asked for; resolves once
   * every one is in (or failed), or the cache is cleared. Resolves at once when they are
   * all cached: nothing is read twice.
   */
  load(runs: Run[]): Promise<void> {
    const keys = new Map<string, bigint>();
    for (const p of pagesOf(runs)) {
      const e = this.pages.get(p.k);
      if (e) e.used = ++this.tick;
      if ((e && !e.stale) || this.errors.has(p.k)) continue;
      const was = keys.get(p.k);
      keys.set(p.k, was !== undefined && was > p.upTo ? was : p.upTo);
      if (!this.inFlight.has(p.k)) this.urgent.push({ partition: p.partition, pageStart: p.pageStart });
    }
    if (keys.size === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push({ keys, resolve }));
    this.pump();
    return done;
  }

  /**
   * The log changed: pages that ended before a page boundary (the partition's tail, which
   * may have grown) are read again when next wanted, their rows shown meanwhile; failed
   * reads are forgotten. Full pages stay, and so do reads on their way (a partial page
   * among them is read again).
   */
  invalidateTail(): void {
    for (const e of this.pages.values()) if (e.short) e.stale = true;
    this.errors.clear();
    this.tailEpoch++;
  }

  /** Forget everything (a partition was rewritten, the topic recreated). */
  clear(): void {
    this.pages.clear();
    this.errors.clear();
    this.queue = [];
    this.urgent = [];
    this.wanted = new Set();
    this.inFlight.clear();
    this.generation++;
    this.releaseWaiters(true);
  }

  stats(): CacheStats {
    let rows = 0;
    for (const e of this.pages.values()) rows += e.rows.size;
    return { pages: this.pages.size, rows, requests: this.requests, inFlight: this.inFlight.size };
  }

  /**
   * Page `done` arrived (or failed): resolve the `load()` calls it completes (with `all`, every
   * one). `through`: the page holds rows only below this offset (a partial page read while the
   * partition grew): only waiters needing no more of it are answered.
   */
  private releaseWaiters(all: boolean, done?: string, through?: bigint): void {
    if (this.waiters.length === 0) return;
    const left: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (done !== undefined) {
        const need = w.keys.get(done);
        if (need !== undefined && (through === undefined || need <= through)) w.keys.delete(done);
      }
      if (all || w.keys.size === 0) w.resolve();
      else left.push(w);
    }
    this.waiters = left;
  }

  private pump(): void {
    while (this.inFlight.size < MAX_IN_FLIGHT && (this.urgent.length > 0 || this.queue.length > 0)) {
      const { partition, pageStart } = this.urgent.length > 0 ? this.urgent.shift()! : this.queue.shift()!;
      const k = keyOf(partition, pageStart);
      const e = this.pages.get(k);
      if ((e && !e.stale) || this.inFlight.has(k)) continue;
      this.inFlight.add(k);
      void this.fetch(partition, pageStart, k);
    }
  }

  private async fetch(partition: number, pageStart: bigint, k: string): Promise<void> {
    const generation = this.generation;
    const tailEpoch = this.tailEpoch;
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
    if (generation !== this.generation) return; // cleared meanwhile: the next want() asks again
    this.inFlight.delete(k);
    const replaced =
      res.status === 'ok'
        ? this.incarnation !== undefined && res.data.incarnation !== this.incarnation
        : res.error.code === 'topic_deleted' || res.error.code === 'topic_not_found';
    if (replaced) {
      // Not this topic's rows (or none are left): keep nothing, and say so once the
      // read is accounted for. Waiters are released: what they wait for will not come.
      if (res.status === 'error') this.errors.set(k, res.error.message);
      this.releaseWaiters(false, k);
      this.onChange();
      this.onReplaced?.();
      return;
    }
    if (res.status === 'ok') {
      const next = BigInt(res.data.next);
      const short = next < pageStart + BigInt(PAGE);
      // A partial page read while the partition grew (the tail moved on since) holds true rows,
      // only maybe not all of them: it is kept, marked stale (read again when next wanted), and
      // its waiters are answered. It used to be dropped and read again at once, and a tail
      // that grows faster than a page is read was then never answered: following a busy log
      // froze.
      const stale = short && tailEpoch !== this.tailEpoch;
      const rows = new Map<string, Row>();
      for (const r of res.data.rows) rows.set(r.offset, r);
      this.pages.set(k, { partition, pageStart, next, rows, short, stale, used: ++this.tick });
      this.evict();
      if (stale) {
        // Answered: the waiters whose rows it holds; read again at once only for one that needs
        // more (the screen's next want() reads it again: it is stale).
        this.releaseWaiters(false, k, next);
        if (this.waiters.some((w) => w.keys.has(k))) this.urgent.push({ partition, pageStart });
        this.onChange();
        this.pump();
        return;
      }
    } else if (tailEpoch === this.tailEpoch) {
      this.errors.set(k, res.error.message);
    }
    this.releaseWaiters(false, k);
    this.onChange();
    this.pump();
  }

  private evict(): void {
    if (this.pages.size <= MAX_PAGES) return;
    const byAge = [...this.pages.entries()].sort((a, b) => a[1].used - b[1].used);
    for (const [k] of byAge.slice(0, this.pages.size - MAX_PAGES)) this.pages.delete(k);
  }
}
