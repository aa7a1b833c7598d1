// A cluster window's state: the cluster and its topics (with their partitions'
// watermarks), the topic picked, and a page of one partition's records read
// from an offset, or from a time (the broker's offset for that time).
// Writes go through the produce dialog (`clusterProduce.svelte.ts`), which
// tells `written` where a record landed.

import { backend } from '../backend';
import type { ClusterInfo, ClusterProduced, ClusterTopic, MessageRow, Page } from '../backend';
import { sidebarRows, writeRates, writtenOf, type Reading, type TreeRow } from './topicList';
import { looksJson } from '../shared/format';

export const PAGE = 100;
/** How often a followed partition is read for new records (ms). */
export const FOLLOW_MS = 1000;
/** The most rows a followed partition keeps on screen (the oldest go first). */
export const FOLLOW_KEEP = 1000;

/** What a cluster window does not offer yet, and why: shown, never offered and then refused. */
export const NOT_YET: { what: string; why: string }[] = [
  { what: 'Create, delete or purge topics', why: 'not built yet for a cluster (a mirror makes the topic it writes to)' },
  { what: 'Export of search hits', why: 'a whole topic or one partition exports (Export…); the hits of a search do not yet' },
];

/** What a record's value is, for the table's Kind column: a tombstone, bytes, JSON or text. */
export function recordKind(r: MessageRow): 'tombstone' | 'bytes' | 'JSON' | 'text' {
  if (r.kafka?.value_null) return 'tombstone';
  if (r.text === null) return 'bytes';
  return looksJson(r.text, !r.truncated) ? 'JSON' : 'text';
}

/** A row's message as one line for the table. */
export function valueText(r: MessageRow): string {
  if (r.kafka?.value_null) return '(tombstone: no value)';
  if (r.text !== null) return r.text;
  if (r.hex !== null) return `0x${r.hex}`;
  return '';
}

export function keyText(r: MessageRow): string {
  if (r.kafka?.key_null) return '(null)';
  return r.key;
}

export class ClusterView {
  info = $state<ClusterInfo | null>(null);
  error = $state<string | null>(null);
  loading = $state(false);
  topic = $state<string | null>(null);
  partition = $state(0);
  rows = $state<MessageRow[]>([]);
  /** The offset the page was read from, the one after it, and the partition's end. */
  from = $state('0');
  next = $state('0');
  end = $state('0');
  pageError = $state<string | null>(null);
  selected = $state<MessageRow | null>(null);
  /** Columns picked from the values' JSON fields (`country`, `customer.id`), in order. */
  columns = $state<string[]>([]);

  /** A second record picked (ctrl/cmd-click) to compare with the selected one, side by side. */
  other = $state<MessageRow | null>(null);
  filter = $state('');
  /** Following the picked partition: new records appended as they arrive. */
  following = $state(false);
  /** Records that arrived since following began, and when it began (ms). */
  arrived = $state(0);
  followSince = $state(0);
  private followTimer: ReturnType<typeof setTimeout> | null = null;
  private followGen = 0;
  /** Where the last record written landed, said until the next one. */
  notice = $state<(ClusterProduced & { from: string | null }) | null>(null);

  current = $derived<ClusterTopic | null>(this.info?.topics.find((t) => t.name === this.topic) ?? null);
  /** The sidebar as a tree by name prefix (on by default once there are many topics). */
  tree = $state(false);
  private treeChosen = false;
  /** The prefixes unfolded in the tree. */
  opened = $state<Set<string>>(new Set());
  rowsShown = $derived<TreeRow[]>(sidebarRows(this.info?.topics ?? [], this.filter, this.tree, this.opened));
  shownCount = $derived<number>(this.rowsShown.reduce((n, r) => n + (r.kind === 'topic' ? 1 : r.open ? 0 : r.topics), 0));

  /** A row clicked: picked alone, or (ctrl/cmd held) as the one to compare the picked one with. */
  click(r: MessageRow, compare: boolean): void {
    const same = (x: MessageRow | null) => x !== null && x.partition === r.partition && x.offset === r.offset;
    if (compare && this.selected && !same(this.selected)) {
      this.other = same(this.other) ? null : r;
      return;
    }
    this.selected = r;
    this.other = null;
  }

  setTree(on: boolean): void {
    this.tree = on;
    this.treeChosen = true;
  }

  toggle(prefix: string): void {
    const next = new Set(this.opened);
    if (next.has(prefix)) next.delete(prefix);
    else next.add(prefix);
    this.opened = next;
  }

  /** Each topic's records written a second between the last two readings of the topics. */
  rates = $state.raw<Map<string, number>>(new Map());
  /** Seconds between those two readings (null until there are two). */
  rateSpan = $state<number | null>(null);
  private reading: Reading | null = null;

  async load(): Promise<void> {
    this.loading = true;
    const r = await backend.clusterInfo();
    this.loading = false;
    if (r.status === 'error') {
      this.error = r.error.message;
      return;
    }
    this.error = null;
    this.info = r.data;
    const now: Reading = { at: Date.now(), written: new Map(r.data.topics.map((t) => [t.name, writtenOf(t)])) };
    if (this.reading && now.at > this.reading.at) {
      this.rates = writeRates(this.reading, now);
      this.rateSpan = (now.at - this.reading.at) / 1000;
    }
    this.reading = now;
    // Hundreds of topics read better folded by prefix: the tree is on until the user chooses.
    if (!this.treeChosen && r.data.topics.length > 200) this.tree = true;
    if (this.topic && !r.data.topics.some((t) => t.name === this.topic)) this.topic = null;
  }

  /** Pick a topic: its first partition that holds records (else its first), from its first offset. */
  async pick(topic: string): Promise<void> {
    this.stopFollowing();
    this.topic = topic;
    const t = this.info?.topics.find((x) => x.name === topic);
    const p = t?.partitions.find((x) => x.messages !== '0') ?? t?.partitions[0];
    this.partition = p?.partition ?? 0;
    await this.read(p?.low ?? '0');
  }

  async pickPartition(p: number): Promise<void> {
    this.stopFollowing();
    this.partition = p;
    const part = this.current?.partitions.find((x) => x.partition === p);
    await this.read(part?.low ?? '0');
  }

  /** Read a page of the picked partition from `offset` (a decimal string: offsets are u64). */
  async read(offset: string): Promise<void> {
    if (!this.topic) return;
    if (!/^\d+$/.test(offset.trim())) {
      this.pageError = `${offset} is not an offset (a whole number of 0 or more)`;
      return;
    }
    const r = await backend.readPage(this.topic, this.partition, offset.trim(), PAGE);
    if (r.status === 'error') {
      this.pageError = r.error.message;
      return;
    }
    this.show(r.data, offset.trim());
  }

  private show(page: Page, from: string): void {
    this.pageError = null;
    this.from = from;
    this.rows = page.rows.flatMap((row) => (row.row === 'message' ? [row as MessageRow & { row: 'message' }] : []));
    this.next = page.next;
    this.end = page.end;
    this.selected = this.rows[0] ?? null;
    this.other = null;
  }

  /** The page before this one (offsets need not be dense: this is an offset range, not a row count). */
  async previous(): Promise<void> {
    const from = BigInt(this.from);
    const low = BigInt(this.current?.partitions.find((p) => p.partition === this.partition)?.low ?? '0');
    const back = from - BigInt(PAGE) < low ? low : from - BigInt(PAGE);
    await this.read(back.toString());
  }

  /**
   * Follow the picked partition: show its last page, then read what comes after it every
   * FOLLOW_MS, appending (at most FOLLOW_KEEP rows kept). A read that fails is said and tried
   * again at the next tick; picking another topic or partition, or a page, stops it.
   */
  async follow(): Promise<void> {
    if (!this.topic) return;
    this.stopFollowing();
    const gen = ++this.followGen;
    const r = await backend.readPage(this.topic, this.partition, '18446744073709551615', 1);
    if (gen !== this.followGen) return;
    if (r.status === 'error') {
      this.pageError = r.error.message;
      return;
    }
    const end = BigInt(r.data.end);
    const low = BigInt(this.current?.partitions.find((p) => p.partition === this.partition)?.low ?? '0');
    const from = end - BigInt(PAGE) > low ? end - BigInt(PAGE) : low;
    await this.read(from.toString());
    if (gen !== this.followGen) return;
    this.following = true;
    this.arrived = 0;
    this.followSince = Date.now();
    this.selected = this.rows[this.rows.length - 1] ?? null;
    this.other = null;
    this.schedule(gen);
  }

  private schedule(gen: number): void {
    this.followTimer = setTimeout(() => void this.tick(gen), FOLLOW_MS);
  }

  private async tick(gen: number): Promise<void> {
    if (gen !== this.followGen || !this.topic) return;
    const r = await backend.readPage(this.topic, this.partition, this.next, 500);
    if (gen !== this.followGen) return;
    if (r.status === 'error') this.pageError = `${r.error.message} (trying again)`;
    else {
      this.pageError = null;
      const fresh = r.data.rows.flatMap((row) => (row.row === 'message' ? [row as MessageRow & { row: 'message' }] : []));
      if (fresh.length > 0) {
        const all = [...this.rows, ...fresh];
        this.rows = all.length > FOLLOW_KEEP ? all.slice(all.length - FOLLOW_KEEP) : all;
        this.from = this.rows[0]?.offset ?? this.from;
        this.arrived += fresh.length;
      }
      this.next = r.data.next;
      this.end = r.data.end;
      this.endMoved(r.data.end);
    }
    this.schedule(gen);
  }

  /** The followed partition's end as just read: its row and its topic's count say it too. */
  private endMoved(end: string): void {
    const t = this.info?.topics.find((x) => x.name === this.topic);
    const p = t?.partitions.find((x) => x.partition === this.partition);
    if (!t || !p || p.high === end) return;
    p.high = end;
    p.messages = (BigInt(end) - BigInt(p.low)).toString();
    t.messages = t.partitions.reduce((sum, x) => sum + BigInt(x.messages), 0n).toString();
  }

  stopFollowing(): void {
    this.followGen++;
    if (this.followTimer !== null) clearTimeout(this.followTimer);
    this.followTimer = null;
    this.following = false;
  }

  /** A record was written: say where, and read the topics again (their ends moved). */
  written(w: ClusterProduced, from: string | null): void {
    this.notice = { ...w, from };
    void this.load();
  }

  /** Show the record a notice names: its topic, its partition, from its offset. */
  async showWritten(): Promise<void> {
    const n = this.notice;
    if (!n) return;
    if (!this.info?.topics.some((t) => t.name === n.topic)) await this.load();
    this.topic = n.topic;
    this.partition = n.partition;
    await this.read(n.offset ?? this.current?.partitions.find((p) => p.partition === n.partition)?.low ?? '0');
  }

  /** Jump to the first record at or after `unix` seconds (the broker's offset for time). */
  async jumpToTime(unix: number): Promise<void> {
    if (!this.topic) return;
    const r = await backend.offsetAtTime(this.topic, this.partition, unix);
    if (r.status === 'error') {
      this.pageError = r.error.message;
      return;
    }
    if (r.data === null) {
      this.pageError = 'No record of this partition is that recent: showing the end.';
      const end = this.current?.partitions.find((p) => p.partition === this.partition)?.high ?? '0';
      const back = BigInt(end) > BigInt(PAGE) ? BigInt(end) - BigInt(PAGE) : 0n;
      const msg = this.pageError;
      await this.read(back.toString());
      this.pageError = msg;
      return;
    }
    await this.read(r.data);
  }
}

export const clusterView = new ClusterView();
