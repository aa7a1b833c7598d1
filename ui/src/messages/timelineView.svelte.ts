// The Messages tab over all partitions (or a time range) as one timeline, ordered by
// timestamp: a TimelineWindow opened on the range, fed the rows on screen and a margin
// around them, grown as the log grows, and caught up to its end while following.

import { tick, untrack } from 'svelte';
import { backend } from '../backend';
import type { TimelineAnchor, TopicDetail } from '../backend';
import type { Range } from '../search/timeRange';
import { linesShown } from './paging';
import { TimelineWindow, TL_PAGE } from './timeline';

/** What the timeline needs of the tab it is shown in. */
export type TimelineHost = {
  readonly topic: string;
  /** The partition shown (null: all). */
  readonly partition: number | null;
  readonly range: Range;
  readonly detail: TopicDetail;
  /** Whether the tab shows the timeline (not one partition's log, not a search's hits). */
  readonly shown: boolean;
  readonly searching: boolean;
  readonly follow: boolean;
  readonly visibleRows: number;
  top: bigint;
  selected: bigint | null;
  newCount: bigint;
  /** When the followed table last moved on (ms), for telling a stalled follow. */
  lastFollowMove: number;
  /** Put the end of the table on screen. */
  toEnd(): void;
};

export class TimelineView {
  /** Bumped when the window's rows or places change: what reads them reads this first. */
  version = $state(0);
  /** The window is open on the current range (its first page read). */
  ready = $state(false);
  readonly tl: TimelineWindow;
  /** The timeline's row count: a log that grows from empty (an import, another writer) has rows to read at the same `top`. */
  readonly count = $derived.by(() => {
    void this.version;
    return this.tl.count;
  });
  /** Damaged lines at the end, not rows: the footer names them, so its count and the topic's add up. */
  readonly damagedAtEnd = $derived.by(() => {
    void this.version;
    return this.tl.damagedAtEnd;
  });
  private seq = 0;
  private key = '';
  private catchingUp = false;
  private catchUpAgain = false;

  constructor(private readonly host: TimelineHost) {
    this.tl = new TimelineWindow(
      {
        before: (before, limit) => backend.timelineBefore(host.topic, this.partitions(), before, limit),
        after: (start, limit) => backend.timelineAfter(host.topic, this.partitions(), start, limit),
      },
      (shift) => {
        // Places moved (damaged lines found at the start): the same rows stay on screen and selected.
        if (shift !== 0n) {
          host.top = host.top + shift < 0n ? 0n : host.top + shift;
          if (host.selected !== null) host.selected = host.selected + shift < 0n ? 0n : host.selected + shift;
        }
        this.version++;
      },
    );
    // The rows on screen and a margin, by growing the window or loading a page there.
    $effect(() => {
      if (host.searching || !host.shown || !this.ready) return;
      void this.count;
      const t = host.top;
      untrack(() => this.wantScreen(t));
    });
    // A new range, partition set or mode opens the timeline again.
    $effect(() => {
      const key = host.shown ? `${host.partition}|${host.range.from}|${host.range.to}` : '';
      untrack(() => {
        if (key === this.key) return;
        this.key = key;
        if (key) void this.open();
      });
    });
  }

  /** The partitions merged (null: all). */
  partitions(): number[] | null {
    return this.host.partition === null ? null : [this.host.partition];
  }

  /** Ask the timeline window for the rows of the screen at `t` and a margin around them. */
  wantScreen(t: bigint): void {
    const rows = this.host.visibleRows;
    const n = BigInt(rows + 2);
    const pad = BigInt(rows * 2 + 20);
    const lo = this.tl.lo + (t > pad ? t - pad : 0n);
    void this.tl.want(lo, this.tl.lo + t + n + pad, (place, last) => this.anchorFor(place, last));
  }

  /** Where to load a page for a place far from the timeline window. */
  private anchorFor(place: bigint, last: bigint): TimelineAnchor | 'end' {
    const tl = this.tl;
    const from = this.host.range.from;
    if (place <= tl.lo) return from !== null ? { at: 'time', unix: from } : { at: 'start' };
    // The end's page is the newest messages: it covers the screen and its margin.
    if (tl.hi === null && last >= tl.last - 1n) return 'end';
    return { at: 'index', index: place.toString() };
  }

  /** (Re)open the timeline: the range's bounds as places, then its first page. */
  private async open(): Promise<void> {
    const host = this.host;
    const tl = this.tl;
    const seq = ++this.seq;
    this.ready = false;
    tl.reset();
    tl.lo = 0n;
    tl.hi = null;
    tl.total = linesShown(host.detail, host.partition);
    const parts = this.partitions();
    const { from, to } = host.range;
    if (from !== null) {
      const r = await backend.timelineAfter(host.topic, parts, { at: 'time', unix: from }, 0);
      if (seq !== this.seq) return;
      if (r.status === 'ok') tl.lo = BigInt(r.data.base);
    }
    if (to !== null) {
      const r = await backend.timelineAfter(host.topic, parts, { at: 'time', unix: to + 0.000001 }, 0);
      if (seq !== this.seq) return;
      if (r.status === 'ok') tl.hi = BigInt(r.data.base);
    }
    host.top = 0n;
    host.selected = null;
    this.version++;
    await tl.anchorAt(from !== null ? { at: 'time', unix: from } : { at: 'start' });
    if (seq !== this.seq) return;
    this.ready = true;
    if (host.follow) void tick().then(() => host.toEnd());
  }

  /** The topic grew (or shrank): the timeline's length, and its new rows while following. */
  async grew(): Promise<void> {
    const host = this.host;
    const before = this.tl.count;
    this.tl.setTotal(linesShown(host.detail, host.partition));
    const grown = this.tl.count - before;
    if (!host.follow) {
      if (grown > 0n && host.top + BigInt(host.visibleRows) < before) host.newCount += grown;
      return;
    }
    if (this.ready) void this.follow();
  }

  /**
   * While following: read the timeline's new rows, then put its end at the bottom of the screen;
   * again while the log grew meanwhile. One catch-up runs at a time, and growth during it asks
   * for another round. It once ran only when the window held the timeline's end at the moment
   * the log grew: a describe arriving while the previous rows were still being read, or F
   * pressed after the log had grown (click a row, Esc, F), left the window short of the end,
   * and every later growth then returned at once: the table froze with follow on.
   */
  private async follow(): Promise<void> {
    if (this.catchingUp) {
      this.catchUpAgain = true;
      return;
    }
    const host = this.host;
    const tl = this.tl;
    this.catchingUp = true;
    try {
      do {
        this.catchUpAgain = false;
        const missing = tl.last - (tl.base + BigInt(tl.rows.length));
        const rows = BigInt(Math.max(1, host.visibleRows));
        // Far behind (a page per read would take long): the newest page instead.
        if (missing > BigInt(TL_PAGE * 10)) await tl.anchorAt('end', Number(rows) + 1);
        else for (let i = 0; i < 20 && !tl.atEnd; i++) if ((await tl.newer()) === 0) break;
        if (!host.follow || host.searching || !host.shown) return;
        host.top = tl.count > rows ? tl.count - rows : 0n;
        host.lastFollowMove = Date.now();
      } while (this.catchUpAgain);
    } finally {
      this.catchingUp = false;
    }
  }
}
