// An in-memory TwainMQ store with the backend's exact shapes, for tests (vi.mock
// of backend.ts) and for running the UI in a plain browser with `?mock`.
// Topics: orders (typed, 4 partitions, a damaged line, an unfinished line),
// firehose (1,000,000 messages made lazily per page), sensors (bytes, u64 keys),
// chat (text, char12 keys, an XSS payload, JSON text with a big integer),
// empty, and broken (an unreadable config). Groups billing (orders) and tail
// (chat, made by 0.2.3) run on the simulation in mockGroups.ts.

import type {
  Backend,
  DeletedTopic,
  DemoMember,
  DragDrop,
  ErrorCode,
  ErrorDto,
  FileDetail,
  GroupDetail,
  MessageRow,
  RawLine,
  NewTopic,
  Page,
  PartitionDetail,
  ProducePayload,
  Produced,
  ResetPlanDto,
  ResetRequest,
  Result,
  Row,
  SearchEvent,
  SearchQuery,
  StoreChanged,
  StoreInfo,
  TopicDetail,
  TopicSummary,
} from './backend';
import { parseJsonTree, prettyJson } from './json';
import { keyProblem, parseKeyType, topicNameProblem } from './validate';
import { MockGroups } from './mockGroups';

export type MockOptions = {
  /** Start with the store open. */
  open?: boolean;
  /** Milliseconds each command takes. */
  latency?: number;
  /** Lines a search scans per step, and the pause between steps (ms). */
  searchChunk?: number;
  searchDelay?: number;
  /** Append a chat message every this many ms (0: never). */
  live?: number;
  /** Fixed "now" (UNIX seconds) the data is built around. */
  now?: number;
  /** Whether the (pretend) file watcher is on; false: changes appear on refresh only. */
  watching?: boolean;
};

export function mockOptionsFromUrl(params: URLSearchParams): MockOptions {
  const num = (k: string) => (params.has(k) ? Number(params.get(k)) : undefined);
  const mock = params.get('mock') ?? '';
  return {
    open: mock === 'open' || params.has('open'),
    latency: num('latency') ?? 15,
    searchChunk: num('searchChunk') ?? 20000,
    searchDelay: num('searchDelay') ?? 30,
    live: num('live') ?? 0,
    watching: !params.has('nowatch'),
  };
}

const ok = <T>(data: T): Result<T> => ({ status: 'ok', data });
const err = <T>(code: ErrorCode, message: string): Result<T> => ({ status: 'error', error: { code, message } });

type Gen = (offset: bigint) => Row;

type MockPartition = {
  start: bigint;
  /** Lines [start, genEnd) come from gen; later ones from appended. */
  genEnd: bigint;
  gen: Gen;
  appended: Row[];
  /** Timestamp of line `start` and seconds between lines (for files and offsetAtTime). */
  t0: number;
  step: number;
  lineBytes: number;
  partialBytes: number;
};

type MockTopic = {
  name: string;
  keyType: string;
  messageTypes: string[];
  partitions: MockPartition[];
  error: string | null;
  unknownFiles: string[];
};

const DAY = 86400;
const MOCK_ROOT = '/home/you/twainmq/demo-store';

function hash32(x: number): number {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}

function msg(p: number, offset: bigint, key: string, keyKind: 'int' | 'str', ts: number, body: Partial<MessageRow>): Row {
  return {
    row: 'message',
    partition: p,
    offset: offset.toString(),
    key,
    key_kind: keyKind,
    timestamp: ts,
    kind: 'str',
    text: null,
    hex: null,
    class: null,
    type_id: null,
    fields_json: null,
    fields_pretty: null,
    size: 0,
    ...body,
  } as Row;
}

const enc = new TextEncoder();

function textBody(s: string): Partial<MessageRow> {
  return { kind: 'str', text: s, size: enc.encode(s).length };
}
function bytesBody(hex: string): Partial<MessageRow> {
  return { kind: 'bytes', hex, size: hex.length / 2 };
}
function typedBody(cls: string | null, typeId: number, json: string): Partial<MessageRow> {
  return { kind: 'dataclass', class: cls, type_id: typeId, fields_json: json, fields_pretty: prettyJson(json), size: enc.encode(json).length };
}

function damaged(p: number, offset: bigint, file: string, line: bigint, problem: string): Row {
  return { row: 'damaged', partition: p, offset: offset.toString(), file, line: line.toString(), problem };
}

const B85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';

/** Base85 (RFC 1924 alphabet), as TwainMQ lines use: only for the mock's raw lines. */
function b85(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    let v = 0;
    for (let k = 0; k < 4; k++) v = v * 256 + (bytes[i + k] ?? 0);
    let chunk = '';
    for (let k = 0; k < 5; k++) {
      chunk = B85[v % 85] + chunk;
      v = Math.floor(v / 85);
    }
    out += chunk.slice(0, 5 - Math.max(0, i + 4 - bytes.length));
  }
  return out;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function dayString(unix: number): string {
  const d = new Date(unix * 1000);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
}

export class MockStore {
  open: boolean;
  root = MOCK_ROOT;
  latency: number;
  /** Calls named here answer only once the promise settles (their answer is taken at once): an answer in flight. */
  held = new Map<string, Promise<void>>();
  searchChunk: number;
  searchDelay: number;
  now: number;
  topics = new Map<string, MockTopic>();
  /** The consumer groups (a simulation of the group protocol). */
  groups: MockGroups;
  /** Whether the pretend watcher is on: when off, no storeChanged events are sent. */
  watching: boolean;
  /** UNIX seconds now, for the group simulation (tests may pin it). */
  clock: () => number = () => Date.now() / 1000;
  recent: string[] = [MOCK_ROOT, '/data/pipeline', '/mnt/usb/old-store'];
  /** Folder the fake pickFolder returns (null: the person cancelled). */
  pickResult: string | null = MOCK_ROOT;
  private changeListeners = new Set<(c: StoreChanged) => void>();
  private dropListeners = new Set<(d: DragDrop) => void>();
  private searches = new Map<number, { cancelled: boolean }>();
  private nextSearch = 0;
  private liveTimer: ReturnType<typeof setInterval> | null = null;
  /** Every call made, for tests: [name, ...args]. */
  calls: unknown[][] = [];

  constructor(opts: MockOptions = {}) {
    this.open = opts.open ?? false;
    this.latency = opts.latency ?? 0;
    this.searchChunk = opts.searchChunk ?? 50000;
    this.searchDelay = opts.searchDelay ?? 0;
    this.now = opts.now ?? Math.floor(Date.now() / 1000);
    this.watching = opts.watching ?? true;
    this.groups = new MockGroups({
      clock: () => this.clock(),
      partitions: (name) => {
        const t = this.topics.get(name);
        if (!t || t.error) return null;
        return t.partitions.map((p) => ({
          start: p.start,
          end: this.end(p),
          timeAt: (o: bigint) => {
            if (o < p.start || o >= this.end(p)) return null;
            const r = this.rowAt(p, o);
            return r.row === 'message' ? r.timestamp : p.t0 + Number(o - p.start) * p.step;
          },
        }));
      },
      topicCounts: () => [...this.topics.values()].filter((t) => !t.error).map((t) => ({ name: t.name, partitions: t.partitions.length })),
      changed: (group) => this.emitChange({ topics: [], groups: [group], structure: false }),
    });
    this.seed();
    if (opts.live && opts.live > 0 && typeof setInterval !== 'undefined') {
      let n = 0;
      this.liveTimer = setInterval(() => {
        if (!this.open) return;
        n++;
        const key = ['ada', 'grace', 'linus'][n % 3];
        this.appendNow('chat', key, textBody(`live message ${n} at ${new Date().toISOString()}`));
        if (this.topics.has('firehose')) this.appendNow('firehose', String(n), textBody(`tail event ${n} level=info`));
      }, opts.live);
    }
  }

  stop(): void {
    if (this.liveTimer) clearInterval(this.liveTimer);
    this.groups.stopAll();
  }

  /** Rebuild the seeded topics (tests call this between cases). */
  /** Drop every change and drag-and-drop listener (tests: each render's app.start() adds its own). */
  forgetListeners(): void {
    this.changeListeners.clear();
    this.dropListeners.clear();
  }

  seed(): void {
    this.topics.clear();
    const now = this.now;
    // orders: typed, u32 keys, 4 partitions of 300, spread over three days.
    const orderTypes = ['Order', 'Refund'];
    const items = ['lamp', 'desk', 'chair', 'monitor', 'cable', 'keyboard', 'headset'];
    const orders: MockPartition[] = [0, 1, 2, 3].map((p) => {
      const t0 = now - 3 * DAY + p * 17;
      const step = (3 * DAY - 120) / 300;
      return {
        start: 0n,
        genEnd: 300n,
        t0,
        step,
        lineBytes: 92,
        partialBytes: p === 2 ? 41 : 0,
        appended: [],
        gen: (o: bigint) => {
          const i = Number(o);
          const ts = t0 + i * step;
          const key = String(1 + (hash32(p * 100003 + i) % 5000));
          if (p === 1 && i === 7) return damaged(p, o, `1-${dayString(t0)}_0.tmf`, 8n, 'payload: invalid base85 character \'~\' at 3');
          if (p === 0 && i === 4)
            return msg(p, o, key, 'int', ts, typedBody('Order', 0, '{"id":123456789012345678901234567890,"item":"lamp","qty":1,"price":19.90,"note":"big id"}'));
          if (i % 11 === 0) {
            const reasons = ['damaged', 'late', 'wrong size'];
            return msg(p, o, key, 'int', ts, typedBody('Refund', 1, `{"order":${i * 4 + p},"reason":"${reasons[i % 3]}"}`));
          }
          const cents = 300 + (hash32(i * 7 + p) % 40000);
          const price = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
          return msg(p, o, key, 'int', ts, typedBody('Order', 0, `{"id":${i * 4 + p},"item":"${items[hash32(i + p) % items.length]}","qty":${1 + (i % 5)},"price":${price}}`));
        },
      };
    });
    this.topics.set('orders', { name: 'orders', keyType: 'u32', messageTypes: orderTypes, partitions: orders, error: null, unknownFiles: [] });

    // firehose: one partition of a million text lines, made per page.
    const fhT0 = now - 50000;
    this.topics.set('firehose', {
      name: 'firehose',
      keyType: 'u64',
      messageTypes: [],
      error: null,
      unknownFiles: [],
      partitions: [
        {
          start: 0n,
          genEnd: 1_000_000n,
          t0: fhT0,
          step: 0.05,
          lineBytes: 71,
          partialBytes: 0,
          appended: [],
          gen: (o: bigint) => {
            const i = Number(o);
            const level = ['info', 'info', 'info', 'debug', 'warn', 'error'][hash32(i) % 6];
            const key = ((o * 2654435761n) % 18446744073709551616n).toString();
            return msg(0, o, key, 'int', fhT0 + i * 0.05, textBody(`event #${i} level=${level} user=${hash32(i * 3) % 977} path=/api/v1/items/${hash32(i) % 10000}`));
          },
        },
      ],
    });

    // sensors: bytes payloads, u64 keys (including u64::MAX), 3 partitions.
    const ids = ['11805601705697281889', '42', '7', '18446744073709551615'];
    const sensors: MockPartition[] = [0, 1, 2].map((p) => {
      const t0 = now - 2 * 3600 + p;
      return {
        start: p === 1 ? 1000n : 0n,
        genEnd: p === 1 ? 1200n : 200n,
        t0,
        step: 30,
        lineBytes: 40,
        partialBytes: 0,
        appended: [],
        gen: (o: bigint) => {
          const i = Number(o);
          const b = new Uint8Array(8);
          new DataView(b.buffer).setUint32(0, i);
          new DataView(b.buffer).setFloat32(4, ((hash32(i + p * 7) % 4000) / 100) - 5);
          const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
          return msg(p, o, ids[hash32(i * 5 + p) % ids.length], 'int', t0 + (i - (p === 1 ? 1000 : 0)) * 30, bytesBody(hex));
        },
      };
    });
    this.topics.set('sensors', { name: 'sensors', keyType: 'u64', messageTypes: [], partitions: sensors, error: null, unknownFiles: ['notes.txt'] });

    // chat: text with char12 keys; an XSS attempt and JSON text with a big integer.
    const who = ['ada', 'grace', 'linus', 'ken', 'barbara'];
    const lines = [
      'hello',
      'ship it',
      'who broke main?',
      'lunch?',
      '<img src=x onerror=alert(1)>',
      '{"user":"ada","id":18446744073709551615,"tags":["a","b"],"ok":true}',
      '{"user":"grace","count":3,"nested":{"list":[1,2.50,3]}}',
      'multi\nline\tmessage',
      'ünïcödé ✓ 日本語',
    ];
    const chat: MockPartition[] = [0, 1].map((p) => {
      const t0 = now - 5 * 3600 + p * 11;
      return {
        start: 0n,
        genEnd: 30n,
        t0,
        step: 600,
        lineBytes: 48,
        partialBytes: 0,
        appended: [],
        gen: (o: bigint) => {
          const i = Number(o);
          return msg(p, o, who[(i + p) % who.length], 'str', t0 + i * 600, textBody(lines[(i * 2 + p) % lines.length]));
        },
      };
    });
    this.topics.set('chat', { name: 'chat', keyType: 'char12', messageTypes: [], partitions: chat, error: null, unknownFiles: [] });

    this.topics.set('empty', {
      name: 'empty',
      keyType: 'u16',
      messageTypes: [],
      error: null,
      unknownFiles: [],
      partitions: [{ start: 0n, genEnd: 0n, t0: now, step: 1, lineBytes: 40, partialBytes: 0, appended: [], gen: () => { throw new Error('no lines'); } }],
    });
    this.topics.set('broken', {
      name: 'broken',
      keyType: '',
      messageTypes: [],
      error: 'the config broken.twc cannot be read: expected key_width at line 1',
      unknownFiles: [],
      partitions: [],
    });
    this.groups.seed(now);
  }

  // ---- helpers -------------------------------------------------------------

  end(p: MockPartition): bigint {
    return p.genEnd + BigInt(p.appended.length);
  }

  rowAt(p: MockPartition, o: bigint): Row {
    return o < p.genEnd ? p.gen(o) : p.appended[Number(o - p.genEnd)];
  }

  lastWrite(p: MockPartition): number | null {
    if (this.end(p) === p.start) return null;
    const last = this.rowAt(p, this.end(p) - 1n);
    return last.row === 'message' ? last.timestamp : p.t0;
  }

  summary(t: MockTopic): TopicSummary {
    if (t.error) {
      return { name: t.name, key_type: '', partitions: 0, message_types: [], messages: '0', bytes: '0', last_write: null, error: t.error };
    }
    let messages = 0n;
    let bytes = 0n;
    let last: number | null = null;
    for (const p of t.partitions) {
      messages += this.end(p) - p.start;
      bytes += this.partitionBytes(p);
      const lw = this.lastWrite(p);
      if (lw !== null && (last === null || lw > last)) last = lw;
    }
    return {
      name: t.name,
      key_type: t.keyType,
      partitions: t.partitions.length,
      message_types: [...t.messageTypes],
      messages: messages.toString(),
      bytes: bytes.toString(),
      last_write: last,
      error: null,
    };
  }

  partitionBytes(p: MockPartition): bigint {
    return (this.end(p) - p.start) * BigInt(p.lineBytes) + BigInt(p.partialBytes);
  }

  files(index: number, p: MockPartition): FileDetail[] {
    const out: FileDetail[] = [];
    const end = this.end(p);
    if (end === p.start) return out;
    // A file per UTC day of the generated lines, the appended ones in the last.
    let first = p.start;
    while (first < end) {
      const ts = first < p.genEnd ? p.t0 + Number(first - p.start) * p.step : this.now;
      const nextMidnight = (Math.floor(ts / DAY) + 1) * DAY;
      let stop = first < p.genEnd ? p.start + BigInt(Math.ceil((nextMidnight - p.t0) / p.step)) : end;
      if (stop <= first) stop = first + 1n;
      if (stop >= p.genEnd) stop = end;
      const lines = stop - first;
      const day = dayString(ts);
      out.push({
        name: `${index}-${day}_${first}.tmf`,
        day,
        first: first.toString(),
        lines: lines.toString(),
        partial_bytes: stop === end ? String(p.partialBytes) : '0',
        bytes: (lines * BigInt(p.lineBytes) + BigInt(stop === end ? p.partialBytes : 0)).toString(),
        modified: first < p.genEnd ? p.t0 + Number(stop - 1n - p.start) * p.step : this.now,
      });
      first = stop;
    }
    return out;
  }

  info(): StoreInfo {
    const topics = [...this.topics.values()].sort((a, b) => a.name.localeCompare(b.name)).map((t) => this.summary(t));
    return { root: this.root, topics, groups: this.groups.summaries(), watching: this.watching };
  }

  detail(t: MockTopic): TopicDetail {
    const partitions: PartitionDetail[] = t.partitions.map((p, i) => ({
      partition: i,
      start: p.start.toString(),
      end: this.end(p).toString(),
      bytes: this.partitionBytes(p).toString(),
      files: this.files(i, p),
    }));
    return { summary: this.summary(t), partitions, unknown_files: [...t.unknownFiles], incarnation: this.incarnationOf(t) };
  }

  private incarnations = new WeakMap<MockTopic, string>();
  private nextIncarnation = 0;

  /** The topic's incarnation: fixed per MockTopic object, so a topic made again under a name has another. */
  incarnationOf(t: MockTopic): string {
    let inc = this.incarnations.get(t);
    if (!inc) {
      inc = `mock-${++this.nextIncarnation}`;
      this.incarnations.set(t, inc);
    }
    return inc;
  }

  /** A new topic with `messages` text messages spread over its partitions (createTopic, tests). */
  makeTopic(name: string, keyType: string, partitions: number, messageTypes: string[] = [], messages = 0): MockTopic {
    const t: MockTopic = {
      name,
      keyType,
      messageTypes,
      error: null,
      unknownFiles: [],
      partitions: Array.from({ length: partitions }, () => ({
        start: 0n,
        genEnd: 0n,
        t0: this.now,
        step: 1,
        lineBytes: 40,
        partialBytes: 0,
        appended: [] as Row[],
        gen: () => {
          throw new Error('no generated lines');
        },
      })),
    };
    const kt = parseKeyType(keyType);
    for (let i = 0; i < messages; i++) {
      const p = i % partitions;
      const part = t.partitions[p];
      part.appended.push(msg(p, BigInt(part.appended.length), String(i), kt?.kind === 'int' ? 'int' : 'str', this.now + i, textBody(`${name} again #${i}`)));
    }
    return t;
  }

  /** Another process deletes a topic as 0.2.3 does (its groups stay), and with `remake`, makes it again (tests). */
  replaceExternally(name: string, remake?: { partitions: number; messages?: number; keyType?: string }): void {
    const old = this.topics.get(name);
    this.topics.delete(name);
    if (remake) this.topics.set(name, this.makeTopic(name, remake.keyType ?? old?.keyType ?? 'u16', remake.partitions, [], remake.messages ?? 0));
    this.emitChange({ topics: [name], groups: [], structure: true });
  }

  emitChange(c: StoreChanged): void {
    if (!this.watching) return;
    // Like the file watcher: a moment after the write.
    setTimeout(() => {
      for (const l of this.changeListeners) l(c);
    }, 5);
  }

  /** Append a message with the current time (the live demo and tests). */
  appendNow(topic: string, key: string, body: Partial<MessageRow>, partition?: number): Produced {
    const t = this.topics.get(topic)!;
    const p = partition ?? this.partitionFor(t, key);
    const part = t.partitions[p];
    const offset = this.end(part);
    const kt = parseKeyType(t.keyType);
    part.appended.push(msg(p, offset, key, kt?.kind === 'int' ? 'int' : 'str', Date.now() / 1000, body));
    this.emitChange({ topics: [topic], groups: [], structure: false });
    return { partition: p, offset: offset.toString() };
  }

  partitionFor(t: MockTopic, key: string): number {
    let h = 0;
    for (const c of enc.encode(key)) h = (Math.imul(h, 31) + c) >>> 0;
    return h % t.partitions.length;
  }

  /** A message's line as it would be on disk: its file, line number and raw text. */
  rawLine(t: MockTopic, partition: number, offset: bigint): RawLine | null {
    const p = t.partitions[partition];
    if (!p || offset < p.start || offset >= this.end(p)) return null;
    const f = this.files(partition, p).find((x) => offset >= BigInt(x.first) && offset < BigInt(x.first) + BigInt(x.lines));
    if (!f) return null;
    const r = this.rowAt(p, offset);
    let raw: string;
    if (r.row === 'damaged') raw = `${b85(enc.encode(String(offset)))}LE6H7~~${b85(enc.encode(r.problem)).slice(0, 24)}`;
    else {
      const body = r.kind === 'bytes' ? hexBytes(r.hex ?? '') : enc.encode(r.kind === 'dataclass' ? (r.fields_json ?? '') : (r.text ?? ''));
      raw = `${b85(enc.encode(r.key)).slice(0, 5).padEnd(5, '0')}${b85(enc.encode(String(Math.floor((r.timestamp ?? 0) * 1e6))))}${b85(body)}`;
    }
    return { file: f.name, line: (offset - BigInt(f.first) + 1n).toString(), raw };
  }

  /** Whether anything listens for folders dropped on the window (the app, once started). */
  get listeningForDrops(): boolean {
    return this.dropListeners.size > 0;
  }

  /** Simulate dropping folders on the window (tests). */
  drop(paths: string[]): void {
    for (const l of this.dropListeners) {
      l({ type: 'enter', paths });
      l({ type: 'drop', paths });
    }
  }

  private async wait(): Promise<void> {
    if (this.latency > 0) await new Promise((r) => setTimeout(r, this.latency));
    else await Promise.resolve();
  }

  private topic(name: string): MockTopic | ErrorDto {
    if (!this.open) return { code: 'no_store', message: 'no store is open: open a folder first' };
    const t = this.topics.get(name);
    if (!t) return { code: 'topic_not_found', message: `topic ${JSON.stringify(name)} does not exist` };
    if (t.error) return { code: 'corrupt_config', message: t.error };
    return t;
  }

  // ---- the Backend interface ----------------------------------------------

  backend(): Backend {
    const call = <A extends unknown[], T>(name: string, f: (...a: A) => Result<T> | Promise<Result<T>>) =>
      async (...a: A): Promise<Result<T>> => {
        this.calls.push([name, ...a]);
        await this.wait();
        const answer = await f(...a);
        await this.held.get(name);
        return answer;
      };
    return {
      kind: 'mock',
      openStore: call('openStore', (path: string) => {
        if (path === this.root || path === '/data/pipeline') {
          this.open = true;
          this.root = path;
          this.recent = [path, ...this.recent.filter((r) => r !== path)];
          return ok(this.info());
        }
        return err('store_not_found', `${path} does not exist or is not a folder: pick the folder that holds the topics' .twc files`);
      }),
      pickFolder: call('pickFolder', () => ok(this.pickResult)),
      recentStores: call('recentStores', () => ok([...this.recent])),
      openDemoStore: call('openDemoStore', () => {
        this.open = true;
        this.root = MOCK_ROOT;
        return ok(this.info());
      }),
      storeInfo: call('storeInfo', () => (this.open ? ok(this.info()) : err('no_store', 'no store is open: open a folder first'))),
      closeStore: call('closeStore', () => {
        for (const d of this.groups.listDemos()) this.groups.stopDemo(d.handle, false);
        this.open = false;
        return ok(null);
      }),
      rawLine: call('rawLine', (topic: string, partition: number, offset: string): Result<RawLine | null> => {
        const t = this.topic(topic);
        if ('code' in t) return { status: 'error', error: t };
        if (!/^\d+$/.test(offset)) return err('invalid_offset', `${JSON.stringify(offset)} is not an offset: give a whole number of 0 or more`);
        return ok(this.rawLine(t, partition, BigInt(offset)));
      }),
      describeTopic: call('describeTopic', (topic: string) => {
        const t = this.topic(topic);
        return 'code' in t ? { status: 'error' as const, error: t } : ok(this.detail(t));
      }),
      readPage: call('readPage', (topic: string, partition: number, from: string, limit: number): Result<Page> => {
        const t = this.topic(topic);
        if ('code' in t) return { status: 'error', error: t };
        const p = t.partitions[partition];
        if (!p) return err('partition_out_of_range', `topic ${topic} has no partition ${partition}`);
        if (!/^\d+$/.test(from)) return err('invalid_offset', `${JSON.stringify(from)} is not an offset: give a whole number of 0 or more`);
        const end = this.end(p);
        let o = BigInt(from) < p.start ? p.start : BigInt(from);
        const n = Math.max(1, Math.min(2000, limit));
        const rows: Row[] = [];
        while (rows.length < n && o < end) {
          rows.push(this.rowAt(p, o));
          o++;
        }
        return ok({ partition, rows, next: o.toString(), end: end.toString(), incarnation: this.incarnationOf(t) });
      }),
      offsetAtTime: call('offsetAtTime', (topic: string, partition: number, unix: number): Result<string | null> => {
        const t = this.topic(topic);
        if ('code' in t) return { status: 'error', error: t };
        const p = t.partitions[partition];
        if (!p) return err('partition_out_of_range', `topic ${topic} has no partition ${partition}`);
        const end = this.end(p);
        if (end === p.start) return ok(null);
        // Binary search: timestamps grow with the offset.
        let lo = p.start;
        let hi = end;
        const tsAt = (o: bigint) => {
          const r = this.rowAt(p, o);
          return r.row === 'message' ? (r.timestamp ?? 0) : p.t0 + Number(o - p.start) * p.step;
        };
        while (lo < hi) {
          const mid = (lo + hi) / 2n;
          if (tsAt(mid) >= unix) hi = mid;
          else lo = mid + 1n;
        }
        return ok(lo < end ? lo.toString() : null);
      }),
      search: call('search', (topic: string, query: SearchQuery, onEvent: (e: SearchEvent) => void): Result<number> => {
        const t = this.topic(topic);
        if ('code' in t) return { status: 'error', error: t };
        let re: RegExp | null = null;
        if (query.text && query.regex) {
          try {
            re = new RegExp(query.text, query.case_sensitive ? '' : 'i');
          } catch (e) {
            return err('invalid_regex', `invalid regular expression ${JSON.stringify(query.text)}: ${(e as Error).message}`);
          }
        }
        const id = ++this.nextSearch;
        const state = { cancelled: false };
        this.searches.set(id, state);
        void this.runSearch(t, query, re, state, onEvent);
        return ok(id);
      }),
      cancelSearch: call('cancelSearch', (id: number) => {
        const s = this.searches.get(id);
        if (s) s.cancelled = true;
        this.searches.delete(id);
        return ok(null);
      }),
      produce: call('produce', (topic: string, key: string, payload: ProducePayload): Result<Produced> => {
        const t = this.topic(topic);
        if ('code' in t) return { status: 'error', error: t };
        const kp = keyProblem(key, t.keyType);
        if (kp) return err('key_out_of_range', `invalid key for topic ${topic}: ${kp}`);
        let body: Partial<MessageRow>;
        if (payload.kind === 'text') body = textBody(payload.body);
        else if (payload.kind === 'hex') {
          const clean = payload.body.replace(/\s+/g, '');
          if (!/^([0-9a-fA-F]{2})*$/.test(clean)) return err('invalid_hex', 'the payload is not valid hex: use pairs of 0-9 a-f');
          body = bytesBody(clean.toLowerCase());
        } else if (payload.kind === 'json') {
          if (!payload.class) return err('missing_class', 'pick the message type of a typed message');
          const tree = parseJsonTree(payload.body);
          if (!tree) return err('invalid_json', 'the payload is not valid JSON: check quotes and commas');
          const typeId = t.messageTypes.indexOf(payload.class);
          if (typeId < 0) return err('unknown_message_type', `topic ${topic} has no message type ${JSON.stringify(payload.class)}`);
          body = typedBody(payload.class, typeId, payload.body.trim());
        } else return err('invalid_json', `unknown payload kind ${JSON.stringify(payload.kind)}: use text, json or hex`);
        return ok(this.appendNow(topic, key, body));
      }),
      createTopic: call('createTopic', (nt: NewTopic): Result<TopicSummary> => {
        if (!this.open) return err('no_store', 'no store is open: open a folder first');
        const name = nt.name.trim();
        const np = topicNameProblem(name);
        if (np) return err('invalid_topic_name', `invalid topic name ${JSON.stringify(name)}: ${np}`);
        if (this.topics.has(name)) return err('topic_exists', `topic ${JSON.stringify(name)} already exists`);
        if (!parseKeyType(nt.key_type.trim())) return err('invalid_key_type', `invalid key type ${JSON.stringify(nt.key_type)}: use u8, u16, u32, u64 or charN`);
        if (nt.partitions < 1 || nt.partitions > 10000) return err('invalid_partition_count', `invalid partition count ${nt.partitions}: use 1 to 10000`);
        const t = this.makeTopic(name, nt.key_type.trim(), nt.partitions, nt.message_types.map((s) => s.trim()).filter((s) => s !== ''));
        this.topics.set(name, t);
        this.emitChange({ topics: [name], groups: [], structure: true });
        return ok(this.summary(t));
      }),
      topicGroups: call('topicGroups', (topic: string): Result<string[]> => {
        if (!this.open) return err('no_store', 'no store is open: open a folder first');
        const np = topicNameProblem(topic);
        if (np) return err('invalid_topic_name', `invalid topic name ${JSON.stringify(topic)}: ${np}`);
        return ok(this.groups.groupsReading(topic));
      }),
      deleteTopic: call('deleteTopic', (topic: string, confirm: string): Result<DeletedTopic> => {
        if (!this.open) return err('no_store', 'no store is open: open a folder first');
        if (confirm !== topic) return err('confirmation_mismatch', `type the topic's name, ${JSON.stringify(topic)}, to confirm the deletion`);
        // As the engine: the groups that read it are listed first (0.2.3's by partition count), then go with it.
        const groups = this.groups.groupsReading(topic);
        if (!this.topics.delete(topic)) return err('topic_not_found', `topic ${JSON.stringify(topic)} does not exist`);
        for (const g of groups) this.groups.deleteGroup(g);
        this.emitChange({ topics: [topic], groups, structure: true });
        return ok({ topic, groups });
      }),
      describeGroup: call('describeGroup', (group: string): Result<GroupDetail> => {
        if (!this.open) return err('no_store', 'no store is open: open a folder first');
        const d = this.groups.describe(group);
        return d ? ok(d) : err('group_not_found', `group ${JSON.stringify(group)} does not exist`);
      }),
      resetGroup: call('resetGroup', (group: string, request: ResetRequest): Result<ResetPlanDto> => {
        if (!this.open) return err('no_store', 'no store is open: open a folder first');
        const r = this.groups.reset(group, request);
        return 'code' in r ? err(r.code as ErrorCode, r.message) : ok(r);
      }),
      triggerRound: call('triggerRound', (group: string, windowMs: number): Result<null> => {
        if (!this.open) return err('no_store', 'no store is open: open a folder first');
        const e = this.groups.triggerRound(group, windowMs);
        return e ? err('group_not_found', e) : ok(null);
      }),
      demoStartMember: call('demoStartMember', (topic: string, group: string, windowMs: number, rate: number): Result<string> => {
        const t = this.topic(topic);
        if ('code' in t) return { status: 'error', error: t };
        if (!/^[A-Za-z0-9_.-]+$/.test(group)) return err('invalid_group_name', `invalid group name ${JSON.stringify(group)}: use letters, digits, _ . -`);
        try {
          return ok(this.groups.startDemo(topic, group, windowMs, rate));
        } catch (e) {
          return err('group_topic_mismatch', (e as Error).message);
        }
      }),
      demoStopMember: call('demoStopMember', (handle: string, kill: boolean): Result<null> => {
        const e = this.groups.stopDemo(handle, kill);
        return e ? err('no_such_member', e) : ok(null);
      }),
      demoMembers: call('demoMembers', (): Result<DemoMember[]> => ok(this.groups.listDemos())),
      onStoreChanged: async (cb) => {
        this.changeListeners.add(cb);
        return () => this.changeListeners.delete(cb);
      },
      onDragDrop: async (cb) => {
        this.dropListeners.add(cb);
        return () => this.dropListeners.delete(cb);
      },
    };
  }

  private async runSearch(t: MockTopic, q: SearchQuery, re: RegExp | null, state: { cancelled: boolean }, send: (e: SearchEvent) => void): Promise<void> {
    const parts = t.partitions.map((_, i) => i).filter((i) => !q.partitions || q.partitions.includes(i));
    const total = parts.reduce((s, i) => s + this.end(t.partitions[i]), 0n);
    const needle = q.text ? (q.case_sensitive ? q.text : q.text.toLowerCase()) : null;
    const limit = BigInt(Math.max(1, q.limit));
    let scanned = 0n;
    let hits = 0n;
    let batch: MessageRow[] = [];
    const flush = () => {
      if (batch.length) send({ event: 'hits', rows: batch });
      batch = [];
    };
    const text = (m: MessageRow) =>
      m.kind === 'bytes' ? (m.hex ?? '') : m.kind === 'dataclass' ? `${m.class ?? ''} ${m.fields_json ?? ''}` : (m.text ?? '');
    for (const pi of parts) {
      const p = t.partitions[pi];
      const end = this.end(p);
      let o = p.start;
      while (o < end) {
        if (state.cancelled) {
          send({ event: 'done', scanned: scanned.toString(), hits: hits.toString(), finish: 'cancelled' });
          return;
        }
        const stop = o + BigInt(this.searchChunk) < end ? o + BigInt(this.searchChunk) : end;
        for (; o < stop; o++) {
          const r = this.rowAt(p, o);
          if (r.row !== 'message') continue;
          scanned++;
          if (q.key && r.key !== q.key) continue;
          if (needle !== null) {
            const s = text(r);
            const hit = re ? re.test(s) : (q.case_sensitive ? s : s.toLowerCase()).includes(needle);
            if (!hit) continue;
          }
          hits++;
          batch.push(r);
          if (hits >= limit) {
            flush();
            send({ event: 'progress', scanned: scanned.toString(), total: total.toString(), hits: hits.toString() });
            send({ event: 'done', scanned: scanned.toString(), hits: hits.toString(), finish: 'limit' });
            return;
          }
        }
        flush();
        send({ event: 'progress', scanned: scanned.toString(), total: total.toString(), hits: hits.toString() });
        await new Promise((r) => setTimeout(r, this.searchDelay));
      }
    }
    send({ event: 'done', scanned: scanned.toString(), hits: hits.toString(), finish: 'done' });
  }
}

/** A mock backend (and its store, for tests to poke). */
export function createMockBackend(opts: MockOptions = {}, store = new MockStore(opts)): Backend & { store: MockStore } {
  return Object.assign(store.backend(), { store });
}

/**
 * The named exports of backend.ts, served by one shared MockStore: tests write
 * `vi.mock('../src/lib/backend', () => import('../src/lib/mockBackend').then((m) => m.mockModule()))`.
 */
export function mockModule(opts: MockOptions = {}) {
  const store = new MockStore({ open: true, ...opts });
  const b = store.backend();
  return {
    mockStore: store,
    backendKind: 'mock' as const,
    ...b,
  };
}
