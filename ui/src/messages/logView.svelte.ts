// One partition's log (or all partitions back to back) as the Messages table's rows: the
// layout of rows by index (as described, and as shown: a followed tail moves on only once
// its rows are read), the page cache asked for what is on screen, and the view kept on the
// same messages when the layout changes (live growth in an earlier partition, a filter).

import { untrack } from 'svelte';
import { backend } from '../backend';
import type { Row, TopicDetail } from '../backend';
import { buildLayout, indexToPos, posToIndex, type Layout, type Pos } from './layout';
import { PageCache } from './pageCache';
import { followTarget, rangeOf, reanchor } from './paging';

/** What the log view needs of the tab. */
export type LogHost = {
  readonly topic: string;
  readonly detail: TopicDetail;
  /** The partition shown (null: all). */
  readonly partition: number | null;
  readonly follow: boolean;
  readonly searching: boolean;
  /** Whether the tab shows the timeline instead. */
  readonly timelineShown: boolean;
  readonly visibleRows: number;
  top: bigint;
  selected: bigint | null;
  newCount: bigint;
  /** A page came from another incarnation of the topic, or the topic is gone. */
  onreplaced(): void;
  /** Put row `i` on screen (once the table has it). */
  reveal(i: bigint): void;
  /** The log grew while the timeline is shown. */
  timelineGrew(): void;
  /** Read the grown layout `l`'s rows up to `row`, then show it (follow.svelte.ts). */
  stageFollow(l: Layout, row: bigint): void;
  /** Where the bottom row goes in the staged layout just shown (taken once). */
  takeFollowPos(): Pos | null;
};

export class LogView {
  /** The log as last described. */
  readonly latest: Layout = $derived.by(() => buildLayout(this.host.detail.partitions, this.host.partition));
  /** The log as the table shows it. */
  layout: Layout = $state.raw(buildLayout([], null));
  /** Bumped when a page arrives. */
  version = $state(0);
  readonly cache: PageCache;
  private prevLayout: Layout | null = null;
  private prevFilter: number | null;
  private firstDetail = true;

  constructor(private readonly host: LogHost) {
    this.layout = untrack(() => this.latest);
    this.prevFilter = untrack(() => host.partition);
    // One incarnation of the topic per tab: the view makes a new tab (and cache) for a new one.
    this.cache = untrack(() => new PageCache(host.topic, backend.readPage, () => this.version++, host.detail.incarnation, () => host.onreplaced()));
    // Partition starts for the cache; a changed log forgets the tail pages.
    $effect.pre(() => {
      const d = host.detail;
      untrack(() => {
        this.cache.setStarts(d.partitions);
        if (!this.firstDetail) this.cache.invalidateTail();
        this.firstDetail = false;
      });
    });
    // A grown log: the timeline's length (and its rows, while following), or this table moved
    // on once the followed tail's rows are read.
    $effect.pre(() => {
      const l = this.latest;
      untrack(() => {
        const old = this.layout;
        if (l === old) return;
        if (host.timelineShown) {
          this.layout = l;
          host.timelineGrew();
          return;
        }
        const target = host.follow && !host.searching && host.partition === this.prevFilter && l.total > old.total ? followTarget(old, l) : null;
        if (target === null) {
          this.layout = l;
          return;
        }
        host.stageFollow(l, target);
      });
    });
    // The view stays on the same messages when the layout changes: rows re-anchored by position.
    $effect.pre(() => {
      const l = this.layout;
      untrack(() => this.reanchor(l));
    });
    // Ask for the pages on screen (and a little around them; only the screen while following
    // the tail, which moves on before anyone scrolls there).
    $effect(() => {
      if (host.searching || host.timelineShown) return;
      const t = host.top;
      const n = BigInt(host.visibleRows + 2);
      const l = this.layout;
      const pad = host.follow ? 0n : 200n;
      const runs = [...rangeOf(l, t, n), ...rangeOf(l, t + n, pad), ...rangeOf(l, t - pad, pad)];
      untrack(() => this.cache.want(runs));
    });
  }

  private reanchor(l: Layout): void {
    const host = this.host;
    const f = host.partition;
    const old = this.prevLayout;
    const filterChanged = f !== this.prevFilter;
    const pos = host.takeFollowPos();
    this.prevLayout = l;
    this.prevFilter = f;
    if (!old || old === l || host.searching || host.timelineShown) return;
    const { top, selected } = reanchor(old, l, host.top, host.selected);
    host.selected = selected;
    if (filterChanged) {
      host.top = top ?? 0n;
      if (selected !== null) host.reveal(selected);
      return;
    }
    if (top !== null) host.top = top;
    const grown = l.total - old.total;
    if (pos && host.follow) {
      // The followed row at the bottom of the screen, in this same update.
      const i = posToIndex(l, pos.partition, pos.offset);
      const rows = BigInt(Math.max(1, host.visibleRows));
      if (i !== null) host.top = i + 1n > rows ? i + 1n - rows : 0n;
    } else if (grown > 0n && !host.follow) host.newCount += grown;
  }

  /** Show `l` at once, as the layout of the partition filter now set (a jump to another partition). */
  adopt(l: Layout): void {
    this.layout = l;
    this.prevLayout = l;
    this.prevFilter = this.host.partition;
  }

  /** What row `i` of the log shows: its row once read, its place, and a read's error. */
  cell(i: bigint): { row?: Row; pos: Pos | null; error?: string } {
    void this.version;
    const pos = indexToPos(this.layout, i);
    if (!pos) return { pos: null };
    return { row: this.cache.get(pos.partition, pos.offset), pos, error: this.cache.errorAt(pos.partition, pos.offset) };
  }

  /** Row `i` of partition `partition`'s table. */
  indexOf(partition: number, offset: bigint): bigint | null {
    return posToIndex(this.layout, partition, offset);
  }
}
