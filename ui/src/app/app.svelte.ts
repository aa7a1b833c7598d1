// App-wide state and the actions that change it: the open store, the chosen
// topic (and tab) or group, live updates from the file watcher, the status bar,
// and the per-topic throughput history.

import { backend } from '../backend';
import { prefs } from './prefs.svelte';
import type { ErrorDto, GroupSummary, Result, RetentionPlanDto, StoreChanged, StoreInfo, StorePresence } from '../backend';
import { clearHistories, rateHistory } from '../shared/history';
import { groupDigits } from '../shared/format';

/** Least time between two store refreshes (and two reloads of a topic). */
export const MIN_REFRESH_MS = 250;

export type Tab = 'messages' | 'partitions' | 'groups' | 'produce' | 'retention';

/** A message to send again, put into the Produce tab's form (editable there). */
export type ProduceDraft = { topic: string; key: string; keyAs?: 'text' | 'hex' | 'none'; kind: 'text' | 'json' | 'hex'; body: string; class: string | null };
export type Dialog = null | 'create' | 'delete';

export type SearchStatus = { state: 'running' | 'done' | 'cancelled' | 'failed'; fraction: number; text: string };

/** Where the app starts (from the address's #hash): used by screenshots and end-to-end tests. */
export type DeepLink = {
  topic?: string;
  group?: string;
  /** Open the group's reset dialog. */
  reset?: boolean;
  tab?: Tab;
  partition?: number;
  select?: { partition: number; offset: string };
  search?: string;
  regex?: boolean;
  dialog?: Dialog;
  detail?: 'text' | 'json' | 'hex' | 'fields';
  follow?: boolean;
  theme?: 'dark' | 'light' | 'system';
  tz?: 'utc' | 'local';
  /** A window opened empty (File → New Window): the last store does not reopen in it. */
  fresh?: boolean;
};

export function parseDeepLink(hash: string): DeepLink {
  const p = new URLSearchParams(hash.replace(/^#\/?/, ''));
  const link: DeepLink = {};
  const topic = p.get('topic');
  if (topic) link.topic = topic;
  const tab = p.get('tab');
  if (tab === 'messages' || tab === 'partitions' || tab === 'groups' || tab === 'produce' || tab === 'retention') link.tab = tab;
  const group = p.get('group');
  if (group) link.group = group;
  if (p.has('reset')) link.reset = true;
  const part = p.get('partition');
  if (part !== null && /^\d+$/.test(part)) link.partition = Number(part);
  const sel = /^(\d+):(\d+)$/.exec(p.get('select') ?? '');
  if (sel) link.select = { partition: Number(sel[1]), offset: sel[2] };
  const search = p.get('search');
  if (search) link.search = search;
  if (p.has('regex')) link.regex = true;
  const dialog = p.get('dialog');
  if (dialog === 'create' || dialog === 'delete') link.dialog = dialog;
  const detail = p.get('detail');
  if (detail === 'text' || detail === 'json' || detail === 'hex' || detail === 'fields') link.detail = detail;
  if (p.has('follow')) link.follow = true;
  const theme = p.get('theme');
  if (theme === 'dark' || theme === 'light' || theme === 'system') link.theme = theme;
  const tz = p.get('tz');
  if (tz === 'utc' || tz === 'local') link.tz = tz;
  if (p.has('fresh')) link.fresh = true;
  return link;
}

class App {
  info = $state<StoreInfo | null>(null);
  /** Shown on the welcome screen when opening failed. */
  openError = $state<{ what: string; error: ErrorDto; path?: string } | null>(null);
  opening = $state(false);
  recent = $state<string[]>([]);
  topic = $state<string | null>(null);
  /** The group whose view is shown (instead of the topic's). */
  group = $state<string | null>(null);
  tab = $state<Tab>('messages');
  dialog = $state<Dialog>(null);
  /** Set by "Re-produce" in the detail pane; the Produce tab takes it into its form. */
  produceDraft = $state<ProduceDraft | null>(null);
  /** Whether the file-watcher subscription is up. */
  live = $state(false);
  lastChange = $state<number | null>(null);
  changes = $state(0);
  /** storeChanged events received (changes counts only those that changed something). */
  events = 0;
  /** Bumped per topic on every change to it: views watch their topic's counter. */
  topicSeq = $state<Record<string, number>>({});
  /** The same per group (its log changed). */
  groupSeq = $state<Record<string, number>>({});
  /** Bumped each time topic counts are sampled for throughput. */
  rateSeq = $state(0);
  /** Lag per group at the previous refresh, for the ▲ badge. */
  lagGrowing = $state<Record<string, boolean>>({});
  now = $state(Date.now());
  status = $state('');
  statusError = $state(false);
  search = $state<SearchStatus | null>(null);
  /** Folder being dragged over the window. */
  dragging = $state(false);
  link = $state<DeepLink>({});
  /**
   * The open store's folder is gone or cannot be reached (null: it is there). Meanwhile
   * nothing of the store is shown (no topic, count or "live"): the window says so and
   * offers to close it; the backend opens it again by itself when it comes back.
   */
  presence = $state<StorePresence | null>(null);
  /** What retention would delete in this store, asked about (the store is set to ask). */
  retentionDue = $state<RetentionPlanDto[]>([]);

  private statusTimer: ReturnType<typeof setTimeout> | null = null;
  private refreshing = false;
  /**
   * Counts opens and closes. A store summary asked for before one and answered
   * after it describes a store no longer shown (or none): it is dropped, or
   * closing a busy store could bring its view back.
   */
  private generation = 0;
  private refreshRequested = 0;
  private refreshDone = 0;
  private refreshWaiters: { want: number; resolve: () => void }[] = [];
  private lastRefresh = 0;
  private infoText = '';

  /** Say something in the status bar for a few seconds. */
  say(text: string, error = false): void {
    this.status = text;
    this.statusError = error;
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => (this.status = ''), error ? 12000 : 5000);
  }

  /** Whether changes show up by themselves: the event subscription is up and the backend watches the folder. */
  get watching(): boolean {
    return this.live && this.info?.watching === true && this.presence === null;
  }

  /** The summary of the chosen topic. */
  get topicSummary() {
    return this.info?.topics.find((t) => t.name === this.topic) ?? null;
  }

  /** Take a store summary; false (and nothing re-rendered) when it is what we had. */
  setInfo(info: StoreInfo): boolean {
    this.sampleCounts(info);
    const text = JSON.stringify(info);
    if (this.info && text === this.infoText) return false;
    this.infoText = text;
    const prev = new Map((this.info?.groups ?? []).map((g): [string, GroupSummary] => [g.name, g]));
    const growing: Record<string, boolean> = {};
    for (const g of info.groups) {
      const p = prev.get(g.name);
      growing[g.name] = p ? BigInt(g.lag) > BigInt(p.lag) : false;
    }
    this.lagGrowing = growing;
    this.info = info;
    return true;
  }

  /** Note each topic's message count now, for its throughput chart. */
  private sampleCounts(info: StoreInfo): void {
    if (this.info && this.info.root !== info.root) clearHistories();
    const t = Date.now();
    for (const topic of info.topics) {
      if (topic.error) continue;
      try {
        rateHistory(topic.name).add(t, BigInt(topic.messages));
      } catch {
        /* not a count */
      }
    }
    this.rateSeq++;
  }

  /** Something on disk really changed (not just a watcher event): for the live indicator. */
  markChanged(): void {
    this.lastChange = Date.now();
    this.changes++;
  }

  async loadRecent(): Promise<void> {
    const r = await backend.recentStores();
    if (r.status === 'ok') this.recent = r.data;
  }

  /** Show a store that opened, keeping the chosen topic when it still exists. */
  private opened(what: string, r: Result<StoreInfo>, path?: string): boolean {
    this.opening = false;
    if (r.status === 'error') {
      this.openError = { what, error: r.error, path };
      if (this.info) this.say(`Could not open ${what}: ${r.error.message}`, true);
      return false;
    }
    const sameRoot = this.info?.root === r.data.root;
    this.generation++;
    this.openError = null;
    this.presence = null;
    this.retentionDue = [];
    this.setInfo(r.data);
    if (!sameRoot || !r.data.topics.some((t) => t.name === this.topic)) {
      this.topic = null;
      this.tab = 'messages';
    }
    if (!sameRoot || !r.data.groups.some((g) => g.name === this.group)) this.group = null;
    this.say(`Opened ${r.data.root}`);
    void this.loadRecent();
    void this.takeRetentionDue();
    return true;
  }

  async openPath(path: string): Promise<boolean> {
    this.opening = true;
    return this.opened(path, await backend.openStore(path), path);
  }

  /** The explicit "Create a store here": an empty (or missing) folder becomes a new, empty store. */
  async createStoreAt(path: string): Promise<boolean> {
    this.opening = true;
    return this.opened(path, await backend.createStore(path), path);
  }

  async openFolder(): Promise<void> {
    const r = await backend.pickFolder();
    if (r.status === 'error') {
      this.openError = { what: 'the folder picker', error: r.error };
      this.say(`The folder picker failed: ${r.error.message}`, true);
      return;
    }
    if (r.data === null) return; // cancelled
    await this.openPath(r.data);
  }

  async openDemo(): Promise<void> {
    this.opening = true;
    this.opened('the demo store', await backend.openDemoStore());
  }

  /** Close the store: its watcher and demo members stop; back to the welcome screen. */
  async closeStore(): Promise<void> {
    this.generation++;
    const r = await backend.closeStore();
    // Summaries asked for while the close was under way (the store's demo members
    // write as they stop, and each write asks for one) were answered by the store
    // still open: dropped, whenever they arrive, or they would bring its view back.
    this.generation++;
    if (r.status === 'error' && r.error.code !== 'no_store') {
      this.say(`Could not close the store: ${r.error.message}`, true);
      return;
    }
    this.info = null;
    this.infoText = '';
    this.topic = null;
    this.group = null;
    this.tab = 'messages';
    this.dialog = null;
    this.search = null;
    this.lastChange = null;
    this.openError = null;
    this.presence = null;
    this.retentionDue = [];
    clearHistories();
    void this.loadRecent();
  }

  /**
   * Re-read everything shown (for when the folder is not watched): the store
   * summary, and every topic and group view.
   */
  async refreshAll(): Promise<void> {
    await this.refresh();
    const seq = { ...this.topicSeq };
    for (const t of this.info?.topics ?? []) seq[t.name] = (seq[t.name] ?? 0) + 1;
    this.topicSeq = seq;
    const gseq = { ...this.groupSeq };
    for (const g of this.info?.groups ?? []) gseq[g.name] = (gseq[g.name] ?? 0) + 1;
    this.groupSeq = gseq;
  }

  /** Refresh the store's summary (sidebar counts, groups); calls during a refresh coalesce. */
  async refresh(): Promise<void> {
    // Each call resolves once a read that started after it has finished, even
    // while a busy folder keeps asking for more (requests coalesce meanwhile).
    const want = ++this.refreshRequested;
    const done = new Promise<void>((resolve) => this.refreshWaiters.push({ want, resolve }));
    if (!this.refreshing) {
      this.refreshing = true;
      void this.runRefreshes();
    }
    return done;
  }

  private async runRefreshes(): Promise<void> {
    try {
      while (this.refreshDone < this.refreshRequested) {
        const target = this.refreshRequested;
        // At most a few refreshes a second, however busy the folder is.
        const wait = this.lastRefresh + MIN_REFRESH_MS - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        this.lastRefresh = Date.now();
        const generation = this.generation;
        const r = await backend.storeInfo();
        if (generation !== this.generation) {
          // Opened or closed meanwhile: not the store shown now.
        } else if (r.status === 'ok') {
          if (this.setInfo(r.data)) this.markChanged();
        } else if (r.error.code !== 'no_store') {
          // A folder that went says so as gone (the look-out's word may come a moment after).
          await this.lookAtPresence();
          if (!this.presence && r.error.code !== 'store_gone') this.say(`Could not refresh the store: ${r.error.message}`, true);
        }
        this.refreshDone = target;
        const ready = this.refreshWaiters.filter((w) => w.want <= target);
        this.refreshWaiters = this.refreshWaiters.filter((w) => w.want > target);
        for (const w of ready) w.resolve();
      }
    } finally {
      this.refreshing = false;
    }
  }

  onChange(c: StoreChanged): void {
    this.events++;
    const seq = { ...this.topicSeq };
    for (const t of c.topics) seq[t] = (seq[t] ?? 0) + 1;
    this.topicSeq = seq;
    if (c.groups.length > 0) {
      const gseq = { ...this.groupSeq };
      for (const g of c.groups) gseq[g] = (gseq[g] ?? 0) + 1;
      this.groupSeq = gseq;
    }
    if (this.info) void this.refresh();
  }

  selectTopic(name: string, tab?: Tab): void {
    this.group = null;
    this.topic = name;
    if (tab) this.tab = tab;
  }

  /** Show a group's view. */
  selectGroup(name: string): void {
    this.group = name;
  }

  /**
   * Say what the app's own retention removed (runs before the window listened included),
   * and where to see it again: the store is set to apply retention automatically.
   */
  async takeRetentionNotices(): Promise<void> {
    const r = await backend.takeRetentionNotices();
    if (r.status === 'ok' && r.data.length > 0) {
      this.retentionNotice = `${retentionSummary(r.data)}, as this store is set to apply retention automatically. Every deletion is listed in a topic's Retention tab, under "Deleted by the app".`;
      this.say(this.retentionNotice);
    }
  }
  /** The last thing the app's automatic retention removed, shown until dismissed. */
  retentionNotice = $state<string | null>(null);

  /** Take what retention would delete, asked about (runs before the window listened included). */
  async takeRetentionDue(): Promise<void> {
    const r = await backend.takeRetentionDue();
    if (r.status === 'ok' && r.data.length > 0) this.retentionDue = r.data;
  }

  /** Whether the store's folder is there; a store that is gone shows as gone. */
  async lookAtPresence(): Promise<void> {
    const r = await backend.storePresence();
    if (r.status === 'ok') this.onPresence(r.data);
  }

  onPresence(p: StorePresence): void {
    if (!this.info) return;
    if (p.state !== 'present') {
      this.presence = p;
      this.search = null;
      // What was said of the store before it went (a failed refresh) no longer applies.
      if (this.statusError) this.status = '';
      return;
    }
    const was = this.presence !== null;
    this.presence = null;
    if (was) {
      this.say(p.message || `The store's folder is back`);
      void this.refreshAll();
    }
  }

  /** First look: a store already open (given on the command line) or the welcome screen. */
  async start(): Promise<void> {
    this.link = typeof location === 'undefined' ? {} : parseDeepLink(location.hash);
    if (this.link.theme) prefs.setTheme(this.link.theme);
    if (this.link.tz) prefs.setTz(this.link.tz);
    try {
      const unlisten = await backend.onStoreChanged((c) => this.onChange(c));
      this.live = typeof unlisten === 'function';
    } catch (e) {
      this.live = false;
      this.say(`Live updates are off: ${e instanceof Error ? e.message : String(e)}`, true);
    }
    try {
      await backend.onRetentionApplied(() => void this.takeRetentionNotices());
      await backend.onRetentionDue(() => void this.takeRetentionDue());
      await backend.onStorePresence((p) => this.onPresence(p));
    } catch {
      /* the app's retention still runs; its removals show on the next refresh */
    }
    try {
      await backend.onDragDrop((d) => {
        if (d.type === 'enter' || d.type === 'over') this.dragging = true;
        else if (d.type === 'leave') this.dragging = false;
        else if (d.type === 'drop') {
          this.dragging = false;
          if (d.paths.length > 0) void this.openPath(d.paths[0]);
        }
      });
    } catch {
      /* no drag and drop here: the buttons still work */
    }
    setInterval(() => (this.now = Date.now()), 5000);
    const recent = this.loadRecent();
    // The store named at launch did not open: say why, in the window (and open no other).
    const launch = await backend.launchError();
    if (launch.status === 'ok' && launch.data) this.openError = { what: launch.data.path, error: launch.data.error, path: launch.data.path };
    let r = await backend.storeInfo();
    // Nothing given at launch: the last store, when the settings say so (not in a window opened empty).
    if (r.status === 'error' && r.error.code === 'no_store' && !this.openError && !this.link.fresh && prefs.launch !== 'welcome') {
      await recent;
      const at = prefs.launch === 'store' && prefs.launchStore ? prefs.launchStore : (this.recent[0] ?? null);
      if (at !== null && (await this.openPath(at))) r = await backend.storeInfo();
    }
    if (r.status === 'ok') {
      this.setInfo(r.data);
      void this.takeRetentionNotices();
      void this.takeRetentionDue();
      const l = this.link;
      if (l.topic && r.data.topics.some((t) => t.name === l.topic)) {
        this.topic = l.topic;
        this.tab = l.tab ?? 'messages';
      }
      if (l.group && r.data.groups.some((g) => g.name === l.group)) this.group = l.group;
      if (l.dialog) this.dialog = l.dialog === 'delete' && !this.topic ? null : l.dialog;
    }
  }
}

/** What the app's own retention run removed, in one status line. */
export function retentionSummary(plans: { topic: string; files_gone: number; messages_gone: string; groups_holding: string[] }[]): string {
  const files = plans.reduce((a, p) => a + p.files_gone, 0);
  const messages = plans.reduce((a, p) => a + BigInt(p.messages_gone), 0n);
  const held = [...new Set(plans.flatMap((p) => p.groups_holding))];
  const where = plans.map((p) => p.topic).join(', ');
  const keep = held.length > 0 ? `; files not yet consumed by ${held.join(', ')} were kept` : '';
  return `Retention removed ${files} old file${files === 1 ? '' : 's'} (${groupDigits(messages)} message${messages === 1n ? '' : 's'}) from ${where}${keep}`;
}

export const app = new App();
