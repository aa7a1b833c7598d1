// The consumer groups of the mock store: a small simulation of TwainMQ's group
// protocol, with the backend's exact shapes. Rounds open for a window and close
// with the engine's assignment; live members offer; demo members consume at their
// rate and commit; a killed member goes silent and loses its partitions at the
// next round (demo members run one every five windows, as the real ones do).

import type { DemoMember, GroupDetail, GroupSummary, MemberDto, PartitionProgressDto, ResetPlanDto, ResetRequest, RoundDto } from './backend';

/** What the group engine needs from the store around it. */
export interface GroupHost {
  /** UNIX seconds now. */
  clock(): number;
  /** The topic's partitions (start, end, and the time of the message at an offset); null: no such topic. */
  partitions(topic: string): { start: bigint; end: bigint; timeAt(offset: bigint): number | null }[] | null;
  /** Every readable topic with its partition count. */
  topicCounts(): { name: string; partitions: number }[];
  /** The group log changed. */
  changed(group: string): void;
}

type Offer = { id: number; own: number[]; partitions: number[] };

/** The engine's assignment (0.2.3's): owned first, then passes in (allowed, -owned, id) order. */
export function assignPartitions(offers: Offer[]): Map<number, number[]> {
  const cleaned = offers.map((o) => {
    const allowed = [...new Set(o.partitions)].sort((a, b) => a - b);
    const owned = o.own.filter((p) => allowed.includes(p));
    const ownedSorted = [...owned].sort((a, b) => a - b);
    const list = [...ownedSorted, ...allowed.filter((p) => !ownedSorted.includes(p))];
    return { id: o.id, allowed: allowed.length, owned: owned.length, list, cur: 0 };
  });
  const all = new Set(offers.flatMap((o) => o.partitions));
  const out = new Map<number, number[]>(cleaned.map((c) => [c.id, []]));
  cleaned.sort((a, b) => a.allowed - b.allowed || b.owned - a.owned || a.id - b.id);
  const taken = new Set<number>();
  while (taken.size < all.size) {
    const before = taken.size;
    for (const c of cleaned) {
      while (c.cur < c.list.length && taken.has(c.list[c.cur])) c.cur++;
      if (c.cur < c.list.length) {
        const p = c.list[c.cur++];
        taken.add(p);
        out.get(c.id)!.push(p);
      }
    }
    if (taken.size === before) break;
  }
  for (const v of out.values()) v.sort((a, b) => a - b);
  return out;
}

type Round = RoundDto & { windowMs: number };

type Group = {
  name: string;
  /** The topic in the group's config (groups 0.2.3 made have none). */
  recorded: string | null;
  /** Partition count from its first commit. */
  hint: number;
  commits: Map<number, bigint>;
  /** id → (joined at, log offset of the JOINED). */
  joins: Map<number, { at: number; offset: number }>;
  rounds: Round[];
  maxKey: number;
  records: number;
  lastRecordAt: number | null;
  /** Members whose process is alive: they offer in rounds. */
  alive: Set<number>;
  /** Pending round ends. */
  timers: ReturnType<typeof setTimeout>[];
};

type Demo = {
  handle: string;
  memberId: number;
  topic: string;
  group: string;
  windowMs: number;
  rate: number;
  status: string;
  consumed: bigint;
  perSecond: number[];
  thisSecond: number;
  budget: number;
  timers: ReturnType<typeof setInterval>[];
};

const DAY = 86400;
const TICK_MS = 200;

export class MockGroups {
  groups = new Map<string, Group>();
  demos = new Map<string, Demo>();
  private nextHandle = 0;

  constructor(private host: GroupHost) {}

  /** Stop every timer (tests reseed between cases). */
  stopAll(): void {
    for (const g of this.groups.values()) for (const t of g.timers) clearTimeout(t);
    for (const d of this.demos.values()) for (const t of d.timers) clearInterval(t);
  }

  /** The seeded groups, built around `now` (UNIX seconds). */
  seed(now: number): void {
    this.stopAll();
    this.groups.clear();
    this.demos.clear();
    this.nextHandle = 0;

    // billing on orders: two members (say, Python processes), a superseded round.
    const billing = this.newGroup('billing', 'orders', 4);
    this.joinAt(billing, 1, now - 2 * DAY);
    this.pastRound(billing, 1, now - 2 * DAY, 5, [{ id: 1, own: [], partitions: [0, 1, 2, 3] }]);
    this.joinAt(billing, 2, now - DAY - 40);
    this.pastRound(billing, 2, now - DAY - 40, 5, [{ id: 2, own: [], partitions: [0, 1, 2, 3] }], true);
    this.pastRound(billing, 1, now - DAY - 38, 5, [
      { id: 2, own: [], partitions: [0, 1, 2, 3] },
      { id: 1, own: [0, 1, 2, 3], partitions: [0, 1, 2, 3] },
    ]);
    for (const [p, o] of [[0, 180n], [1, 300n], [2, 250n], [3, 130n]] as const) billing.commits.set(p, o);
    billing.records += 6;
    billing.lastRecordAt = now - 3600;
    billing.alive = new Set([1, 2]);

    // tail: made by 0.2.3 with start_from "now" (-1 commits, no topic in its config).
    const tail = this.newGroup('tail', null, 2);
    tail.commits.set(0, -1n);
    tail.commits.set(1, -1n);
    this.joinAt(tail, 1, now - 4 * 3600);
    const r = this.pastRound(tail, 1, now - 4 * 3600, 5, [{ id: 1, own: [], partitions: [0, 1] }]);
    r.confirms = {};
    tail.lastRecordAt = r.ended_at;
  }

  /** A group as a test wants it: members holding partitions (alive or not), commits. */
  create(name: string, topic: string | null, partitions: number, opts: { commits?: [number, bigint][]; members?: { id: number; partitions: number[]; alive?: boolean }[] } = {}): void {
    const g = this.newGroup(name, topic, partitions);
    for (const [p, o] of opts.commits ?? []) g.commits.set(p, o);
    const now = this.host.clock();
    const members = opts.members ?? [];
    for (const m of members) this.joinAt(g, m.id, now - 60);
    if (members.length > 0) {
      const r = this.pastRound(g, members[0].id, now - 59, 1, members.map((m) => ({ id: m.id, own: [], partitions: m.partitions })));
      r.assignment = Object.fromEntries(members.map((m) => [String(m.id), m.partitions]));
      r.confirms = structuredClone(r.assignment);
    }
    g.alive = new Set(members.filter((m) => m.alive !== false).map((m) => m.id));
  }

  private newGroup(name: string, recorded: string | null, hint: number): Group {
    const g: Group = {
      name,
      recorded,
      hint,
      commits: new Map(),
      joins: new Map(),
      rounds: [],
      maxKey: 0,
      records: 1,
      lastRecordAt: null,
      alive: new Set(),
      timers: [],
    };
    this.groups.set(name, g);
    return g;
  }

  private joinAt(g: Group, id: number, at: number): void {
    g.joins.set(id, { at, offset: g.records++ });
    g.maxKey = Math.max(g.maxKey, id);
    g.lastRecordAt = at;
  }

  /** A round that began and ended in the past (or was superseded). */
  private pastRound(g: Group, by: number, at: number, windowS: number, offers: Offer[], superseded = false): Round {
    const begin = g.records++;
    const assignment = superseded ? new Map<number, number[]>() : assignPartitions(offers);
    const r: Round = {
      begin_offset: String(begin),
      started_by: by,
      started_at: at,
      ends_at: at + windowS,
      offers: offers.map((o, i) => ({ ...o, at: at + 0.05 * (i + 1) })),
      ended_at: superseded ? null : at + windowS + 0.4,
      ended_by: superseded ? null : by,
      superseded,
      assignment: Object.fromEntries([...assignment].map(([k, v]) => [String(k), v])),
      confirms: Object.fromEntries([...assignment].map(([k, v]) => [String(k), v])),
      windowMs: windowS * 1000,
    };
    g.records += offers.length + (superseded ? 0 : 1 + assignment.size);
    g.rounds.push(r);
    g.lastRecordAt = r.ended_at ?? at;
    return r;
  }

  // ---- reading the log -------------------------------------------------------

  private openRound(g: Group): Round | null {
    const last = g.rounds[g.rounds.length - 1];
    return last && last.ended_at === null && !last.superseded ? last : null;
  }

  /** Members as the log tells: the last finished round's assignment, plus joins since it began. */
  members(g: Group): Map<number, number[]> {
    const out = new Map<number, number[]>();
    const done = [...g.rounds].reverse().find((r) => r.ended_at !== null);
    let since = 0;
    if (done) {
      for (const [id, ps] of Object.entries(done.assignment)) out.set(Number(id), [...ps]);
      since = Number(done.begin_offset);
    }
    for (const [id, j] of g.joins) if (j.offset >= since && !out.has(id)) out.set(id, []);
    return new Map([...out].sort((a, b) => a[0] - b[0]));
  }

  /** The group's topic: recorded, else the only topic whose partition count matches. */
  topicOf(g: Group): { topic: string | null; candidates: string[] } {
    const candidates = this.host.topicCounts().filter((t) => t.partitions === g.hint).map((t) => t.name);
    return { topic: g.recorded ?? (candidates.length === 1 ? candidates[0] : null), candidates };
  }

  private record(g: Group): number {
    g.lastRecordAt = this.host.clock();
    this.host.changed(g.name);
    return g.records++;
  }

  summaries(): GroupSummary[] {
    return [...this.groups.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((g) => {
        const d = this.describe(g.name)!;
        return { name: g.name, topic: d.topic, members: d.members.length, lag: d.partitions.reduce((s, p) => s + BigInt(p.lag), 0n).toString() };
      });
  }

  describe(name: string): GroupDetail | null {
    const g = this.groups.get(name);
    if (!g) return null;
    const { topic, candidates } = this.topicOf(g);
    const members = this.members(g);
    const partitions: PartitionProgressDto[] = [];
    const parts = topic ? this.host.partitions(topic) : null;
    for (const [i, p] of (parts ?? []).entries()) {
      const c = g.commits.get(i);
      const from = c === undefined ? 0n : c >= 0n ? c : p.end;
      const eff = from < p.start ? p.start : from;
      const lag = p.end > from ? p.end - from : 0n;
      const owner = [...members].find(([, ps]) => ps.includes(i))?.[0] ?? null;
      partitions.push({
        partition: i,
        committed: c === undefined ? null : c.toString(),
        end: p.end.toString(),
        lag: lag.toString(),
        oldest_unconsumed_at: lag > 0n && eff < p.end ? p.timeAt(eff) : null,
        owner,
      });
    }
    const dto = (r: Round): RoundDto => {
      const { windowMs: _, ...rest } = r;
      void _;
      return structuredClone(rest);
    };
    const open = this.openRound(g);
    return {
      name,
      topic,
      topic_candidates: candidates,
      members: [...members].map(([id, ps]): MemberDto => ({ id, partitions: ps, joined_at: g.joins.get(id)?.at ?? null, last_seen_at: g.lastRecordAt })),
      partitions,
      open_round: open ? dto(open) : null,
      rounds: [...g.rounds].reverse().map(dto),
      records: String(g.records),
      last_record_at: g.lastRecordAt,
      now: this.host.clock(),
    };
  }

  // ---- rounds ------------------------------------------------------------------

  /** Open a round (`by` 0: from outside the group); live members offer, it ends after the window. */
  beginRound(g: Group, by: number, windowMs: number): Round {
    const now = this.host.clock();
    const open = this.openRound(g);
    if (open) open.superseded = true;
    const r: Round = {
      begin_offset: String(this.record(g)),
      started_by: by,
      started_at: now,
      ends_at: now + windowMs / 1000,
      offers: [],
      ended_at: null,
      ended_by: null,
      superseded: false,
      assignment: {},
      confirms: {},
      windowMs,
    };
    g.rounds.push(r);
    if (g.rounds.length > 200) g.rounds.shift();
    const held = this.members(g);
    const { topic } = this.topicOf(g);
    const count = topic ? (this.host.partitions(topic)?.length ?? g.hint) : g.hint;
    const all = Array.from({ length: count }, (_, i) => i);
    // The starter offers at once, the others a moment later, as their polls notice.
    const ids = [...g.alive].sort((a, b) => (a === by ? -1 : b === by ? 1 : a - b));
    ids.forEach((id, i) => {
      const offer = () => {
        if (r.superseded || r.ended_at !== null || !g.alive.has(id)) return;
        r.offers.push({ id, own: held.get(id) ?? [], partitions: all, at: this.host.clock() });
        this.record(g);
      };
      if (i === 0) offer();
      else g.timers.push(setTimeout(offer, Math.min(25 * i, windowMs / 3)));
    });
    g.timers.push(setTimeout(() => this.endRound(g, r), windowMs));
    return r;
  }

  private endRound(g: Group, r: Round): void {
    if (r.superseded || r.ended_at !== null) return;
    // Only a live member writes the end: with none left, the round stays open (as in the engine).
    if (g.alive.size === 0) return;
    const a = assignPartitions(r.offers);
    const ender = [...g.alive].sort((x, y) => x - y)[0];
    r.ended_at = this.host.clock();
    r.ended_by = ender;
    r.assignment = Object.fromEntries([...a].map(([k, v]) => [String(k), v]));
    r.confirms = Object.fromEntries([...a].filter(([k]) => g.alive.has(k)).map(([k, v]) => [String(k), v]));
    this.record(g);
    g.records += Object.keys(r.confirms).length;
  }

  triggerRound(name: string, windowMs: number): string | null {
    const g = this.groups.get(name);
    if (!g) return `group ${JSON.stringify(name)} does not exist`;
    this.beginRound(g, 0, Math.max(100, windowMs));
    return null;
  }

  // ---- resets ------------------------------------------------------------------

  reset(name: string, req: ResetRequest): ResetPlanDto | { code: string; message: string } {
    const g = this.groups.get(name);
    if (!g) return { code: 'group_not_found', message: `group ${JSON.stringify(name)} does not exist` };
    const { topic } = this.topicOf(g);
    if (!topic) return { code: 'unknown_topic', message: `group ${name}'s topic is not recorded and no single topic has its ${g.hint} partitions` };
    const parts = this.host.partitions(topic) ?? [];
    const chosen = req.partitions === null ? parts.map((_, i) => i) : [...new Set(req.partitions)].sort((a, b) => a - b);
    for (const p of chosen) {
      if (p >= parts.length)
        return { code: 'no_such_partition', message: `group ${name} reads ${topic}, which has no partition ${p} (it has ${parts.length})` };
    }
    let offset = 0n;
    if (req.to === 'offset') {
      if (!req.offset || !/^\d+$/.test(req.offset.trim())) return { code: 'invalid_offset', message: `${JSON.stringify(req.offset ?? '')} is not an offset: give a whole number of 0 or more` };
      offset = BigInt(req.offset.trim());
    } else if (req.to === 'time') {
      if (req.time === null) return { code: 'invalid_reset', message: 'a reset to a time needs the time' };
    } else if (req.to !== 'earliest' && req.to !== 'latest') {
      return { code: 'invalid_reset', message: `${JSON.stringify(req.to)} is not a reset target: use earliest, latest, offset or time` };
    }
    const rows = chosen.map((p) => {
      const { start, end, timeAt } = parts[p];
      let after: bigint;
      if (req.to === 'earliest') after = start;
      else if (req.to === 'latest') after = end;
      else if (req.to === 'offset') after = offset < start ? start : offset > end ? end : offset;
      else {
        // The first message at or after the time (binary search: times grow with offsets).
        let lo = start;
        let hi = end;
        while (lo < hi) {
          const mid = (lo + hi) / 2n;
          if ((timeAt(mid) ?? 0) >= (req.time ?? 0)) hi = mid;
          else lo = mid + 1n;
        }
        after = lo;
      }
      const before = g.commits.get(p);
      return { partition: p, before: before === undefined ? null : before.toString(), after: after.toString(), start: start.toString(), end: end.toString() };
    });
    const live = [...this.members(g)].filter(([, ps]) => ps.length > 0).map(([id]) => id);
    if (!req.dry_run && rows.length > 0) {
      for (const r of rows) g.commits.set(r.partition, BigInt(r.after));
      this.record(g);
    }
    return { group: name, topic, rows, live_members: live, applied: !req.dry_run };
  }

  // ---- demo members ----------------------------------------------------------------

  startDemo(topic: string, group: string, windowMs: number, rate: number): string {
    const parts = this.host.partitions(topic);
    if (!parts) throw new Error(`topic ${JSON.stringify(topic)} does not exist`);
    let g = this.groups.get(group);
    if (!g) {
      g = this.newGroup(group, topic, parts.length);
      for (let p = 0; p < parts.length; p++) g.commits.set(p, 0n);
      this.record(g);
    } else {
      const t = this.topicOf(g).topic;
      if (t !== null && t !== topic) throw new Error(`group ${group} reads ${t}, not ${topic}`);
    }
    const grp = g;
    const d: Demo = {
      handle: String(++this.nextHandle),
      memberId: 0,
      topic,
      group,
      windowMs,
      rate,
      status: 'joining',
      consumed: 0n,
      perSecond: [],
      thisSecond: 0,
      budget: 0,
      timers: [],
    };
    this.demos.set(d.handle, d);
    const join = setTimeout(() => {
      if (d.status !== 'joining') return;
      const id = ++grp.maxKey;
      d.memberId = id;
      grp.joins.set(id, { at: this.host.clock(), offset: this.record(grp) });
      grp.alive.add(id);
      d.status = 'running';
      this.beginRound(grp, id, Math.max(100, windowMs));
      const window = Math.max(100, windowMs);
      // A round every five windows, so the map heals when a member dies.
      d.timers.push(
        setInterval(() => {
          if (!this.openRound(grp)) this.beginRound(grp, id, window);
        }, window * 5),
      );
      d.timers.push(setInterval(() => this.consume(grp, d, TICK_MS / 1000), TICK_MS));
      d.timers.push(
        setInterval(() => {
          d.perSecond.push(d.thisSecond);
          if (d.perSecond.length > 60) d.perSecond.shift();
          d.thisSecond = 0;
        }, 1000),
      );
    }, 30);
    d.timers.push(join as unknown as ReturnType<typeof setInterval>);
    return d.handle;
  }

  /** Read what the member holds (as of the last finished round) at its rate, and commit. */
  private consume(g: Group, d: Demo, dt: number): void {
    if (d.status !== 'running') return;
    const parts = this.host.partitions(d.topic);
    if (parts === null) {
      // Its topic was deleted (by 0.2.3, which leaves the groups): stop, commit nothing.
      this.failDemo(d, `failed: topic ${JSON.stringify(d.topic)} was deleted or made again by another process: this member stopped without committing. Start a new member to read the topic as it is now`);
      return;
    }
    if (this.openRound(g)) return;
    const held = this.members(g).get(d.memberId) ?? [];
    d.budget += d.rate > 0 ? d.rate * dt : 1000 * dt;
    let took = 0n;
    for (const p of held) {
      const part = parts[p];
      if (!part) continue;
      const c = g.commits.get(p);
      let from = c === undefined ? part.start : c < 0n ? part.end : c;
      if (from < part.start) from = part.start;
      const want = BigInt(Math.floor(d.budget));
      if (want <= 0n) break;
      const n = part.end - from < want ? part.end - from : want;
      if (n > 0n) {
        g.commits.set(p, from + n);
        d.budget -= Number(n);
        took += n;
      }
    }
    if (took === 0n) d.budget = Math.min(d.budget, d.rate > 0 ? d.rate : 1000);
    if (took > 0n) {
      d.consumed += took;
      d.thisSecond += Number(took);
      this.record(g);
    }
  }

  /** The groups whose topic is `topic` (as the engine's `groups_reading`): deleting the topic deletes them. */
  groupsReading(topic: string): string[] {
    return [...this.groups.values()].filter((g) => this.topicOf(g).topic === topic).map((g) => g.name).sort();
  }

  /** Delete a group (with its topic): its demo members stop without committing, as the app's do. */
  deleteGroup(name: string): void {
    const g = this.groups.get(name);
    if (!g) return;
    for (const t of g.timers) clearTimeout(t);
    for (const d of this.demos.values()) {
      if (d.group !== name || (d.status !== 'running' && d.status !== 'joining')) continue;
      this.failDemo(d, `failed: group ${JSON.stringify(name)} was deleted or made again by another process (deleting a topic deletes its groups): this member stopped without committing. Start a new member to read the topic as it is now`);
    }
    this.groups.delete(name);
  }

  private failDemo(d: Demo, status: string): void {
    for (const t of d.timers) clearInterval(t);
    d.timers = [];
    d.status = status;
    this.groups.get(d.group)?.alive.delete(d.memberId);
  }

  stopDemo(handle: string, kill: boolean): string | null {
    const d = this.demos.get(handle);
    if (!d) return `no demo member ${handle}`;
    if (d.status !== 'running' && d.status !== 'joining') return null;
    for (const t of d.timers) clearInterval(t);
    d.timers = [];
    const g = this.groups.get(d.group);
    d.status = kill ? 'killed' : 'stopped';
    if (!g || d.memberId === 0) return null;
    g.alive.delete(d.memberId);
    if (!kill) {
      // Commit and leave: a member holding partitions opens a round so the others take them
      // (when it was the last one, nobody ends that round, as in the engine).
      this.record(g);
      if ((this.members(g).get(d.memberId) ?? []).length > 0 || this.openRound(g)) this.beginRound(g, d.memberId, Math.max(100, d.windowMs));
    }
    return null;
  }

  listDemos(): DemoMember[] {
    return [...this.demos.values()].map((d) => ({
      handle: d.handle,
      member_id: d.memberId,
      topic: d.topic,
      group: d.group,
      window_ms: d.windowMs,
      rate: d.rate,
      status: (d.status.startsWith('failed') ? 'failed' : d.status) as DemoMember['status'],
      problem: d.status.startsWith('failed: ') ? d.status.slice('failed: '.length) : null,
      partitions: d.status === 'running' ? [...(this.members(this.groups.get(d.group)!).get(d.memberId) ?? [])] : [],
      consumed: d.consumed.toString(),
      per_second: [...d.perSecond],
    }));
  }
}
