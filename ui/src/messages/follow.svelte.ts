// Following a growing log in one partition's table (all partitions: see timelineView):
// the new tail's rows are read first, then the grown log is shown with the tail at the
// bottom, in one change (not "…" rows first and the rows a moment later). A follow that
// stops says so: stalled is the log grown past the table, and the table not moving on, for
// STALL_MS. A busy log is nearly always a little ahead of the table (it moves on once the
// new tail's rows are read), so being behind alone is not a stall; not moving while behind is.

import { indexToPos, type Layout, type Pos } from './layout';
import type { PageCache } from './pageCache';
import { rangeOf } from './paging';

const STALL_MS = 3000;

/** What following needs of the tab. */
export type FollowHost = {
  readonly follow: boolean;
  readonly searching: boolean;
  /** The log as last described, and as the table shows it. */
  readonly latest: Layout;
  layout: Layout;
  readonly cache: PageCache;
  readonly visibleRows: number;
  /** Whether the table is behind the log now (the timeline's or the partition's). */
  behind(): boolean;
};

export class Follow {
  /** Seconds the followed table has not moved while the log grew, once past STALL_MS; 0: keeping up. */
  behindSecs = $state(0);
  /** When the followed table last moved on (ms). */
  lastMove = 0;
  /** Where the bottom row of the screen goes when the staged layout is shown (taken once). */
  pos: Pos | null = null;
  private seq = 0;
  private applied = 0;
  private behindSince: number | null = null;

  constructor(private readonly host: FollowHost) {
    $effect(() => {
      if (!host.follow || host.searching) {
        this.behindSecs = 0;
        this.behindSince = null;
        return;
      }
      const timer = setInterval(() => {
        const now = Date.now();
        if (!host.behind()) this.behindSince = null;
        else this.behindSince ??= now;
        const stuckSince = this.behindSince === null ? null : Math.max(this.behindSince, this.lastMove);
        const s = stuckSince === null ? 0 : now - stuckSince;
        this.behindSecs = s >= STALL_MS ? Math.floor(s / 1000) : 0;
      }, 500);
      return () => clearInterval(timer);
    });
  }

  /** Read the grown layout `l`'s rows up to `row` (its followed tail), then show `l` with that row at the bottom. */
  async stage(l: Layout, row: bigint): Promise<void> {
    const host = this.host;
    const seq = ++this.seq;
    const n = BigInt(Math.max(1, host.visibleRows) + 1);
    const first = row + 1n > n ? row + 1n - n : 0n;
    await host.cache.load(rangeOf(l, first, n + 1n));
    // A newer refresh is reading a newer tail: let it move, unless the view has waited too long.
    if (seq < this.applied || (seq !== this.seq && Date.now() - this.lastMove < 1000)) return;
    if (!host.follow || host.searching || host.latest.segments.length !== l.segments.length) {
      if (seq === this.seq) host.layout = host.latest;
      return;
    }
    this.applied = seq;
    this.lastMove = Date.now();
    this.pos = indexToPos(l, row);
    host.layout = l;
  }
}
