// A search of the Messages tab: started through the backend, its progress
// streamed, its hits read by pages of HITS_PAGE as they come on screen (while it
// runs too, as far as they have settled, in timeline order, never reordered), and
// what the status bar says of it. One at a time: a newer search replaces the older,
// and leaving the tab stops a running one.

import { untrack } from 'svelte';
import { backend } from '../backend';
import type { MessageRow, SearchEvent } from '../backend';
import type { SearchStatus } from '../app/app.svelte';
import { counted, formatTime, groupDigits, type Tz } from '../shared/format';
import { MODE_LABEL, parseFilter, toQuery, type ModeChoice } from './filter';
import { markPattern } from './highlight';
import type { MissingField } from '../backend';
import type { Range } from './timeRange';

/** Hits read a request, when browsing a search's results. */
export const HITS_PAGE = 200;

export type Run = {
  id: number | null;
  gen: number;
  state: 'running' | 'done' | 'cancelled' | 'failed';
  scanned: bigint;
  total: bigint;
  hits: bigint;
  error: string;
  label: string;
};

/** What a search needs of the tab it runs in. */
export type SearchHost = {
  readonly topic: string;
  /** The partition shown (null: all). */
  readonly partition: number | null;
  readonly range: Range;
  readonly tz: Tz;
  /** The table's first row on screen and its selected row: a search starts at its top, and Clear goes back. */
  top: bigint;
  selected: bigint | null;
  newCount: bigint;
  readonly visibleRows: number;
  onstatus?: (s: SearchStatus | null) => void;
};

/** 1,234,567 as "1.2 M". */
export function compact(n: bigint): string {
  if (n < 10000n) return groupDigits(n);
  if (n < 1000000n) return `${(Number(n) / 1000).toFixed(1)} k`;
  if (n < 1000000000n) return `${(Number(n) / 1e6).toFixed(1)} M`;
  return `${(Number(n) / 1e9).toFixed(1)} G`;
}

export class SearchRun {
  /** The filter box: its text, its mode, match case, and whether its expression compiles. */
  q = $state('');
  modeChoice = $state<ModeChoice>('auto');
  caseSensitive = $state(false);
  /** The filter box's expression does not compile (its check said so): nothing is searched. */
  filterInvalid = $state(false);
  error = $state('');
  /** Whether the table shows the search's hits (else the log). */
  on = $state(false);
  run = $state<Run | null>(null);
  /** The hits browsable: those settled so far (in timeline order, never reordered), all once it ends. */
  hitsTotal = $state(0n);
  /** The search's hits, read by pages of HITS_PAGE: page index → rows. */
  private hitPages = $state.raw<Map<number, MessageRow[]>>(new Map());
  /** Pages read while the search ran and not yet full: read again as more hits settle. */
  private readonly partialPages = new Set<number>();
  private readonly hitsLoading = new Set<number>();
  private gen = 0;
  /** Where the table was before the search, for Clear. */
  private saved: { top: bigint; selected: bigint | null } | null = null;
  readonly parsed = $derived(parseFilter(this.q, this.modeChoice));
  /** What the table marks in the hits: the search's text, regex or key as it ran (not as the box is edited since). */
  marks = $state.raw<{ re: RegExp; on: 'payload' | 'key' } | null>(null);
  /** A filter that found nothing: the `value` fields it reads that no message searched has (with near names). */
  missing = $state.raw<MissingField[]>([]);

  constructor(private readonly host: SearchHost, q: string) {
    this.q = q;
    // A search shows hits of the range it ran over: a new range (a preset, Apply) runs it again
    // over the new one, so no hit outside the range shown stays on screen.
    let searchedRange = untrack(() => `${host.range.from}|${host.range.to}`);
    $effect(() => {
      const key = `${host.range.from}|${host.range.to}`;
      untrack(() => {
        if (key === searchedRange) return;
        searchedRange = key;
        if (this.on && this.run && this.run.state !== 'failed') void this.start();
      });
    });
    // Its hits, read by pages as they come on screen: while it runs too, as far as they have
    // settled (a page not yet full is read again as it fills).
    $effect(() => {
      const run = this.run;
      if (!this.on || !run || run.id === null || run.state === 'failed') return;
      void this.hitsTotal;
      const first = Number(host.top / BigInt(HITS_PAGE));
      const last = Number((host.top + BigInt(host.visibleRows + 2)) / BigInt(HITS_PAGE));
      const id = run.id;
      const g = run.gen;
      untrack(() => {
        for (let p = first; p <= last; p++) void this.loadHits(id, g, p);
      });
    });
    // Its progress, to the status bar.
    $effect(() => {
      const r = this.run;
      if (!r) {
        untrack(() => host.onstatus?.(null));
        return;
      }
      const fraction = r.total > 0n ? Number((r.scanned * 1000n) / r.total) / 1000 : r.state === 'running' ? 0 : 1;
      const text =
        r.state === 'running'
          ? `search: ${counted(r.hits, 'match', 'matches')} in ${compact(r.scanned)} · ${Math.round(fraction * 100)}%`
          : r.state === 'failed'
            ? `search failed: ${r.error}`
            : `search ${r.state === 'cancelled' ? 'cancelled' : 'done'}: ${counted(r.hits, 'match', 'matches')} in ${counted(r.scanned, 'line', 'lines')}`;
      untrack(() => host.onstatus?.({ state: r.state, fraction, text }));
    });
    $effect(() => {
      return () => {
        // Leaving the topic: stop a running search.
        const r = untrack(() => this.run);
        if (r?.state === 'running' && r.id !== null) void backend.cancelSearch(r.id);
        host.onstatus?.(null);
      };
    });
  }

  /** Hit `i` (0: the oldest on the timeline), once read. */
  hit(i: bigint): MessageRow | undefined {
    return this.hitPages.get(Number(i / BigInt(HITS_PAGE)))?.[Number(i % BigInt(HITS_PAGE))];
  }

  /** What the search looks for, in words (its banner, the export dialog's scope). */
  private describe(): string {
    const parts: string[] = [];
    const p = this.parsed;
    if (p.body) parts.push(`${MODE_LABEL[p.mode]} ${p.mode === 'cel' ? p.body : JSON.stringify(p.body)}`);
    parts.push(this.host.partition === null ? 'all partitions' : `partition ${this.host.partition}`);
    const { from, to } = this.host.range;
    if (from !== null || to !== null) parts.push(`${from === null ? '…' : formatTime(from, this.host.tz)} – ${to === null ? '…' : formatTime(to, this.host.tz)}`);
    return parts.join(' · ');
  }

  async start(): Promise<void> {
    const host = this.host;
    this.error = '';
    const p = this.parsed;
    if (!p.body) {
      this.error = 'type text to find, /a regex/, key:K, or a CEL filter such as value.amount > 100';
      return;
    }
    if (p.mode === 'cel' && this.filterInvalid) {
      this.error = 'the filter does not compile (see under the box): nothing was searched';
      return;
    }
    this.stopRunning();
    if (!this.on) this.saved = { top: host.top, selected: host.selected };
    const g = ++this.gen;
    this.marks = markPattern(p, this.caseSensitive);
    this.missing = [];
    this.on = true;
    this.hitPages = new Map();
    this.partialPages.clear();
    this.hitsTotal = 0n;
    host.top = 0n;
    host.selected = null;
    host.newCount = 0n;
    this.run = { id: null, gen: g, state: 'running', scanned: 0n, total: 0n, hits: 0n, error: '', label: this.describe() };
    const r = await backend.search(
      host.topic,
      toQuery(p, { caseSensitive: this.caseSensitive, partitions: host.partition === null ? null : [host.partition], since: host.range.from, until: host.range.to }),
      (e) => this.onEvent(g, e),
    );
    const run = this.run;
    if (g !== this.gen || !run) {
      if (r.status === 'ok') void backend.dropSearch(r.data);
      return;
    }
    if (r.status === 'error') {
      run.state = 'failed';
      run.error = r.error.message;
      this.error = r.error.message;
      return;
    }
    run.id = r.data;
    // Done before its id came back: look for missing fields now.
    if (run.state === 'done' && run.hits === 0n && p.mode === 'cel') void this.findMissing(g, r.data);
    if (run.state === 'cancelled') void backend.cancelSearch(r.data);
  }

  private onEvent(g: number, e: SearchEvent): void {
    const run = this.run;
    if (g !== this.gen || !run) return;
    if (run.state === 'failed') return;
    switch (e.event) {
      case 'progress':
        if (run.state !== 'running') return;
        run.scanned = BigInt(e.scanned);
        run.total = BigInt(e.total);
        run.hits = BigInt(e.hits);
        this.hitsTotal = BigInt(e.settled);
        break;
      case 'done':
        run.scanned = BigInt(e.scanned);
        run.total = BigInt(e.total);
        run.hits = BigInt(e.hits);
        if (run.total < run.scanned) run.total = run.scanned;
        run.state = e.finish === 'cancelled' ? 'cancelled' : 'done';
        // Every hit is browsable: the table's rows are the session's, read by index.
        this.hitsTotal = run.hits;
        if (run.hits === 0n && run.state === 'done' && run.id !== null && this.parsed.mode === 'cel') void this.findMissing(g, run.id);
        break;
      case 'failed':
        run.state = 'failed';
        run.error = e.error.message;
        this.error = e.error.message;
        break;
    }
  }

  /** Why a filter found nothing, when a field it reads is in no message searched. */
  private async findMissing(g: number, id: number): Promise<void> {
    const r = await backend.missingFields(id);
    if (g !== this.gen || r.status === 'error') return;
    this.missing = r.data;
  }

  private async loadHits(id: number, g: number, page: number): Promise<void> {
    if ((this.hitPages.has(page) && !this.partialPages.has(page)) || this.hitsLoading.has(page) || BigInt(page * HITS_PAGE) >= this.hitsTotal) return;
    this.hitsLoading.add(page);
    const running = this.run?.state === 'running';
    const r = await backend.searchRows(id, String(page * HITS_PAGE), HITS_PAGE);
    this.hitsLoading.delete(page);
    if (g !== this.gen) return;
    if (r.status === 'error') {
      this.error = r.error.message;
      return;
    }
    if (running && r.data.rows.length < HITS_PAGE) this.partialPages.add(page);
    else this.partialPages.delete(page);
    const next = new Map(this.hitPages);
    next.set(page, r.data.rows);
    // A few pages kept: the screen's and those around it.
    if (next.size > 30) next.delete(next.keys().next().value!);
    this.hitPages = next;
  }

  private stopRunning(): void {
    const run = this.run;
    if (run?.state === 'running') {
      run.state = 'cancelled';
      if (run.id !== null) void backend.cancelSearch(run.id);
    }
  }

  /** Stop a running search (within milliseconds); its hits so far stay listed. */
  cancel(): void {
    this.stopRunning();
  }

  /** Back to the log: to where the table was before the search (`restore`), else its top. */
  clear(restore = true): void {
    const host = this.host;
    this.stopRunning();
    if (this.run?.id != null) void backend.dropSearch(this.run.id);
    this.gen++;
    this.on = false;
    this.hitPages = new Map();
    this.partialPages.clear();
    this.hitsTotal = 0n;
    this.run = null;
    this.error = '';
    this.marks = null;
    this.missing = [];
    if (restore && this.saved) {
      host.top = this.saved.top;
      host.selected = this.saved.selected;
    } else {
      host.top = 0n;
      host.selected = null;
    }
    this.saved = null;
  }
}
