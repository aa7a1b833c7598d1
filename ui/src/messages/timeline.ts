// A window onto a topic's timeline (its partitions merged by timestamp, the
// backend's timeline_before/after): rows are places on the timeline, 0 the
// oldest line on disk. The window holds up to MAX_ROWS rows around what is on
// screen and grows page by page as the table scrolls (older pages by the
// `begin` cut, newer ones by the `end` cut); a place far from it (a scroll bar
// dragged, Home, End, a time) loads a page there instead.

import type { MessageRow, Offset, Result, TimelineAnchor, TimelinePageDto } from '../backend/api';

export const TL_PAGE = 300;
export const MAX_ROWS = 4000;
/** How far beyond the window a wanted place may be and still be reached by growing it. */
const REACH = BigInt(TL_PAGE * 3);

export type TimelineFetch = {
  before(before: Offset[] | null, limit: number): Promise<Result<TimelinePageDto>>;
  after(start: TimelineAnchor, limit: number): Promise<Result<TimelinePageDto>>;
};

export class TimelineWindow {
  rows: MessageRow[] = [];
  /** The timeline place of rows[0]. */
  base = 0n;
  /** Lines on the timeline (damaged ones too), from the newest page read or the topic's description. */
  total = 0n;
  /** Damaged lines found at the end (counted in `total`, never rows). */
  private tailGap = 0n;
  private begin: Offset[] = [];
  private end: Offset[] = [];
  private first: Offset[] = [];
  private partitions: number[] = [];
  /** The range's bounds as places (null: open), and the range's times. */
  lo = 0n;
  hi: bigint | null = null;
  error = '';
  incarnation: string | null | undefined = undefined;
  private busy: Promise<void> | null = null;
  private wanted: { first: bigint; last: bigint } | null = null;
  /** Bumped by reset(): answers to older requests are dropped. */
  private generation = 0;

  constructor(
    private fetch: TimelineFetch,
    private onChange: (shift: bigint) => void,
  ) {}

  /** The places the table can show: [lo, end). */
  get last(): bigint {
    const end = this.total - this.tailGap;
    return this.hi !== null && this.hi < end ? this.hi : end;
  }

  get count(): bigint {
    return this.last > this.lo ? this.last - this.lo : 0n;
  }

  /** Damaged lines at the timeline's end (found once its end is read; none when the range
   *  ends earlier): counted in the topic's line count, shown as no row. */
  get damagedAtEnd(): bigint {
    return this.hi === null ? this.tailGap : 0n;
  }

  get atStart(): boolean {
    return this.rows.length > 0 && this.base <= this.lo;
  }

  /** Whether the window reaches the timeline's end as last read. */
  get atEnd(): boolean {
    return this.base + BigInt(this.rows.length) >= this.last;
  }

  /** The row at a timeline place, if the window has it. */
  get(place: bigint): MessageRow | undefined {
    const i = place - this.base;
    return i >= 0n && i < BigInt(this.rows.length) ? this.rows[Number(i)] : undefined;
  }

  /** Where a message is on the timeline, if the window has it. */
  placeOf(partition: number, offset: string): bigint | null {
    const i = this.rows.findIndex((r) => r.partition === partition && r.offset === offset);
    return i < 0 ? null : this.base + BigInt(i);
  }

  /** Forget the rows (a new range, partition set or topic incarnation). */
  reset(): void {
    this.generation++;
    this.rows = [];
    this.base = 0n;
    this.tailGap = 0n;
    this.begin = this.end = this.first = [];
    this.wanted = null;
    this.error = '';
  }

  /** The topic's length as described now (it grew, or was cut). */
  setTotal(total: bigint): void {
    if (total !== this.total) {
      this.total = total;
      this.onChange(0n);
    }
  }

  private take(p: TimelinePageDto): void {
    this.partitions = p.partitions;
    this.first = p.first;
    this.total = BigInt(p.total);
    this.incarnation = p.incarnation;
  }

  /** Load a page at `anchor`, replacing the window; resolves to the place of its first row. */
  async anchorAt(anchor: TimelineAnchor | 'end', visible = 40): Promise<bigint | null> {
    this.reset();
    const g = this.generation;
    const r = anchor === 'end' ? await this.fetch.before(null, Math.max(TL_PAGE, visible)) : await this.fetch.after(anchor, TL_PAGE);
    if (g !== this.generation) return null;
    if (r.status === 'error') {
      this.error = r.error.message;
      this.onChange(0n);
      return null;
    }
    this.take(r.data);
    this.rows = r.data.rows;
    this.base = BigInt(r.data.base);
    this.begin = r.data.begin;
    this.end = r.data.end;
    this.error = '';
    if (anchor === 'end' || r.data.rows.length < TL_PAGE) this.tailGap = this.total - (this.base + BigInt(this.rows.length));
    if (this.tailGap < 0n) this.tailGap = 0n;
    this.onChange(0n);
    return this.base;
  }

  /** Rows older than the window: returns how many came. */
  async older(): Promise<number> {
    if (this.rows.length === 0 || this.base <= this.lo) return 0;
    const g = this.generation;
    const r = await this.fetch.before(this.begin, TL_PAGE);
    if (g !== this.generation) return 0;
    if (r.status === 'error') {
      this.error = r.error.message;
      this.onChange(0n);
      return 0;
    }
    const p = r.data;
    this.take(p);
    const n = p.rows.length;
    let shift = 0n;
    const newBase = this.base - BigInt(n);
    // Damaged lines are places without rows: at the start, the window starts at 0.
    if (BigInt(p.base) !== newBase && (n === 0 || BigInt(p.base) === 0n)) shift = BigInt(p.base) - newBase;
    this.rows = p.rows.concat(this.rows);
    this.base = newBase + shift;
    this.begin = p.begin;
    if (n === 0) this.lo = this.base > this.lo ? this.lo : this.lo;
    if (this.rows.length > MAX_ROWS) this.dropNewest(this.rows.length - MAX_ROWS);
    this.onChange(shift);
    return n;
  }

  /** The newer() read on its way: a second caller shares it (two reads after the same end cut would append the same rows twice). */
  private reading: Promise<number> | null = null;

  /** Rows newer than the window (new messages while following): returns how many came. */
  newer(): Promise<number> {
    this.reading ??= this.readNewer().finally(() => (this.reading = null));
    return this.reading;
  }

  private async readNewer(): Promise<number> {
    if (this.rows.length === 0) return 0;
    const g = this.generation;
    const r = await this.fetch.after({ at: 'at', offsets: this.end }, TL_PAGE);
    if (g !== this.generation) return 0;
    if (r.status === 'error') {
      this.error = r.error.message;
      this.onChange(0n);
      return 0;
    }
    const p = r.data;
    this.take(p);
    this.rows = this.rows.concat(p.rows);
    this.end = p.end;
    if (p.rows.length < TL_PAGE) {
      const gap = this.total - (this.base + BigInt(this.rows.length));
      this.tailGap = gap > 0n ? gap : 0n;
    }
    if (this.rows.length > MAX_ROWS) this.dropOldest(this.rows.length - MAX_ROWS);
    this.onChange(0n);
    return p.rows.length;
  }

  /** Drop the `k` oldest rows; the window's begin cut moves past them. */
  private dropOldest(k: number): void {
    const kept = this.rows.slice(k);
    this.begin = this.partitions.map((p, i) => kept.find((r) => r.partition === p)?.offset ?? this.end[i]);
    this.rows = kept;
    this.base += BigInt(k);
  }

  /** Drop the `k` newest rows; the window's end cut moves before them. */
  private dropNewest(k: number): void {
    const kept = this.rows.slice(0, this.rows.length - k);
    this.end = this.partitions.map((p, i) => {
      for (let j = kept.length - 1; j >= 0; j--) if (kept[j].partition === p) return (BigInt(kept[j].offset) + 1n).toString();
      return this.begin[i];
    });
    this.rows = kept;
  }

  /**
   * Have the rows of places first..last (the screen and a margin): grow the window
   * toward them, or load a page there when they are far. Calls coalesce.
   */
  want(first: bigint, last: bigint, anchorFor: (first: bigint, last: bigint) => TimelineAnchor | 'end'): Promise<void> {
    this.wanted = { first: first < this.lo ? this.lo : first, last };
    if (!this.busy) {
      this.busy = this.pump(anchorFor).finally(() => (this.busy = null));
    }
    return this.busy;
  }

  private async pump(anchorFor: (first: bigint, last: bigint) => TimelineAnchor | 'end'): Promise<void> {
    for (let guard = 0; guard < 20 && this.wanted; guard++) {
      const { first, last } = this.wanted;
      const top = this.base;
      const bottom = this.base + BigInt(this.rows.length);
      if (this.rows.length === 0 || last < top - REACH || first > bottom + REACH) {
        const g = this.generation;
        this.wanted = null;
        await this.anchorAt(anchorFor(first, last));
        if (g + 1 !== this.generation || this.error) return;
        continue;
      }
      if (first < top && top > this.lo) {
        if ((await this.older()) === 0) this.wanted = null;
        continue;
      }
      const end = this.last;
      if (last >= bottom && bottom < end) {
        if ((await this.newer()) === 0) this.wanted = null;
        continue;
      }
      this.wanted = null;
    }
  }
}
