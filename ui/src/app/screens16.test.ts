// Big stores and truthful screens: the sidebar over 5,000 topics, a 1,000-partition
// Partitions tab, last write as the newest message's time, decoded typed text,
// dates with the year, text time inputs, failed searches, the detail pane.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import Sidebar from '../store/Sidebar.svelte';
import PartitionsTab from '../topics/PartitionsTab.svelte';
import MessagesTab from '../messages/MessagesTab.svelte';
import DetailPane from '../messages/DetailPane.svelte';
import TimeRange from '../search/TimeRange.svelte';
import { app } from './app.svelte';
import { hexDump, hexLineChars, parseTime } from '../shared/format';
import { nextSort, sortPartitions, summarize } from '../topics/partitions';
import { clampDetail, MIN_DETAIL } from '../messages/paneWidth';
import { rowWindow } from '../shared/virtual';
import type { GroupSummary, PartitionDetail, Row, TopicDetail, TopicSummary } from '../backend';
import { describe_, mock, recordedMessage, rows, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

function topic(i: number, over: Partial<TopicSummary> = {}): TopicSummary {
  return {
    name: `topic-${String(i).padStart(4, '0')}`,
    key_type: 'u32',
    partitions: 4,
    message_types: [],
    messages: String(i * 10),
    bytes: String(i * 1000),
    last_write: NOW / 1000,
    last_message: NOW / 1000 - 3600 * 5,
    error: null,
    ...over,
  };
}

function bigStore(n = 5000): { topics: TopicSummary[]; groups: GroupSummary[] } {
  const topics = Array.from({ length: n }, (_, i) => topic(i));
  const groups: GroupSummary[] = Array.from({ length: 40 }, (_, i) => ({
    name: `group-${i}`,
    topic: topics[(i * 37) % n].name,
    members: 1,
    live_members: 1,
    state: 'stable',
    lag: '0',
  }));
  return { topics, groups };
}

beforeEach(() => {
  localStorage.clear();
  mock().seed();
  app.now = NOW;
  app.topic = null;
  app.group = null;
});
afterEach(() => cleanup());

describe('the sidebar over a big store', () => {
  it('renders 5,000 topics as a window of rows, filters as you type, says N of M, keeps the groups reachable', async () => {
    const store = bigStore();
    app.info = { root: '/big', watching: true, ...store };
    const t0 = performance.now();
    const { getByTestId, queryByTestId } = render(Sidebar);
    const renderMs = performance.now() - t0;
    const rendered = () => document.querySelectorAll('[data-testid=topic-list] [role=option]').length;
    expect(rendered()).toBeGreaterThan(10);
    expect(rendered()).toBeLessThan(100); // not 5,000
    expect(getByTestId('topics-count').textContent).toBe('5,000');
    // The groups are there without scrolling past the topics.
    expect(getByTestId('group-item-group-0')).toBeTruthy();
    expect(getByTestId('groups-count').textContent).toBe('40');

    const t1 = performance.now();
    await fireEvent.input(getByTestId('sidebar-filter'), { target: { value: 'topic-12' } });
    const filterMs = performance.now() - t1;
    // topic-1200..1299.
    expect(getByTestId('topics-count').textContent).toBe('100 of 5,000');
    expect(getByTestId('topic-item-topic-1210')).toBeTruthy();
    expect(queryByTestId('topic-item-topic-0001')).toBeNull();
    // Groups reading a matching topic stay (group-33, -34, -35 read topic-1221, -1258, -1295).
    expect(getByTestId('groups-count').textContent).toBe('3 of 40');
    expect(getByTestId('group-item-group-34')).toBeTruthy();

    await fireEvent.input(getByTestId('sidebar-filter'), { target: { value: 'zzz' } });
    expect(getByTestId('filter-empty').textContent).toMatch(/No topic or group name contains “zzz”/);
    expect(getByTestId('topics-count').textContent).toBe('0 of 5,000');
    await fireEvent.keyDown(getByTestId('sidebar-filter'), { key: 'Escape' });
    expect(getByTestId('topics-count').textContent).toBe('5,000');
    expect(queryByTestId('filter-empty')).toBeNull();
    // Measured in jsdom (no layout, so an upper bound on the real thing's script time).
    console.info(`sidebar, 5,000 topics: first render ${renderMs.toFixed(0)} ms, one filter keystroke ${filterMs.toFixed(0)} ms`);
    expect(renderMs).toBeLessThan(1500);
    expect(filterMs).toBeLessThan(500);
  });

  it('collapses a section and remembers it', async () => {
    app.info = { root: '/big', watching: true, ...bigStore(50) };
    const { getByTestId, queryByTestId } = render(Sidebar);
    await fireEvent.click(getByTestId('topics-toggle'));
    expect(queryByTestId('topic-list')).toBeNull();
    expect(getByTestId('topics-toggle').getAttribute('aria-expanded')).toBe('false');
    expect(getByTestId('group-item-group-0')).toBeTruthy();
    cleanup();
    const again = render(Sidebar);
    expect(again.queryByTestId('topic-list')).toBeNull();
    expect(JSON.parse(localStorage.getItem('twainmq.sidebar.sections')!)).toEqual({ topics: false, groups: true });
  });

  it('groups the digits of counts as the rest of the app does (6,000, not 6000)', () => {
    app.info = { root: '/s', watching: true, topics: [topic(1, { partitions: 1000, messages: '6000' }), topic(2, { messages: '12345' })], groups: [] };
    const { getByTestId } = render(Sidebar);
    const item = getByTestId('topic-item-topic-0001');
    expect(item.querySelector('[data-testid=topic-count]')!.textContent).toBe('6,000');
    expect(item.textContent).toMatch(/1,000 P ·/);
    expect(getByTestId('topic-item-topic-0002').querySelector('[data-testid=topic-count]')!.textContent).toBe('12.3 k');
  });

  it('shows last write as the newest message’s time, not the file’s', () => {
    app.info = { root: '/s', watching: true, topics: [topic(1, { last_write: NOW / 1000 - 2, last_message: NOW / 1000 - 3 * 86400 })], groups: [] };
    const { getByTestId } = render(Sidebar);
    expect(getByTestId('topic-last').textContent).toBe('3 d ago');
    expect(getByTestId('topic-item-topic-0001').getAttribute('title')).toMatch(/last message 2026-11-28 12:00:00\.000 \(UTC\)/);
  });

  it('moves through the filtered topics with the keyboard, from the filter box down', async () => {
    app.info = { root: '/big', watching: true, ...bigStore(300) };
    const { getByTestId } = render(Sidebar);
    await fireEvent.input(getByTestId('sidebar-filter'), { target: { value: 'topic-02' } });
    await fireEvent.keyDown(getByTestId('sidebar-filter'), { key: 'ArrowDown' });
    await until(() => (document.activeElement as HTMLElement | null)?.dataset.key === 'topic-0200', 'the first match focused');
    await fireEvent.keyDown(getByTestId('topic-list'), { key: 'End' });
    await until(() => app.topic === 'topic-0299', 'the last match chosen');
  });
});

function parts(n: number): PartitionDetail[] {
  return Array.from({ length: n }, (_, p) => ({
    partition: p,
    start: '0',
    end: String(p === 500 ? 9000 : 1000 + (p % 7)),
    bytes: String((p % 13) * 4096),
    last_message: p === 3 ? null : 1_764_000_000 + p,
    files: p === 3 ? [] : [{ name: `${p}-20261130_0.tmf`, day: '20261130', first: '0', lines: '1000', partial_bytes: '0', bytes: '4096', modified: 1_764_500_000 }],
  }));
}

describe('the Partitions tab of a 1,000-partition topic', () => {
  it('sums up, sorts by any column and renders only a window of rows', async () => {
    const detail = (await describe_('orders')) as TopicDetail;
    const big: TopicDetail = { ...detail, partitions: parts(1000) };
    const { getByTestId } = render(PartitionsTab, { detail: big, tz: 'utc', now: NOW });
    const shown = () => [...document.querySelectorAll<HTMLElement>('[data-testid=partition-row]')].map((r) => Number(r.dataset.partition));
    expect(shown().length).toBeLessThan(100);
    expect(shown()[0]).toBe(0);
    const summary = getByTestId('partition-summary').textContent!;
    expect(summary).toMatch(/1,000 partitions/);
    expect(summary).toMatch(/999 day files/);
    expect(getByTestId('partition-minmax').textContent).toMatch(/min 1,000 \(P0\) · max 9,000 \(P500\)/);
    // max / mean: 9000 / (sum / 1000).
    const total = parts(1000).reduce((s, p) => s + Number(p.end), 0);
    expect(getByTestId('partition-skew').textContent).toContain(`${(Math.floor((9000 * 1000 * 100) / total) / 100).toFixed(2)}×`);
    await fireEvent.click(getByTestId('sort-messages'));
    expect(shown()[0]).toBe(500);
    await fireEvent.click(getByTestId('sort-last'));
    expect(shown()[0]).toBe(999);
    await fireEvent.click(getByTestId('sort-last'));
    expect(shown()[0]).toBe(3); // no message: the oldest
    await fireEvent.click(getByTestId('sort-partition'));
    expect(shown()[0]).toBe(0);
    // Last write is the message's time; the file's time is labelled as such in the file's tooltip.
    const row = document.querySelector<HTMLElement>('[data-testid=partition-row][data-partition="1"]')!;
    expect(row.querySelector('[data-testid=partition-last]')!.getAttribute('title')).toMatch(/2025-11-24 16:00:01\.000 \(UTC\): the newest message's own timestamp/);
    expect(row.querySelector('[data-testid=segment]')!.getAttribute('title')).toMatch(/file modified 2025-11-30 10:53:20\.000 \(UTC\) \(a file time\)/);
  });

  it('labels day files MM-DD while all are of this year, and with the year once one is not', async () => {
    const detail = (await describe_('orders')) as TopicDetail;
    const labels = () => [...document.querySelectorAll('[data-testid=segment] .d')].map((e) => e.textContent);
    const file = (day: string, first: string) => ({ name: `0-${day}_0.tmf`, day, first, lines: '10', partial_bytes: '0', bytes: '400', modified: null });
    const one = (days: string[]): TopicDetail => ({ ...detail, partitions: [{ ...parts(1)[0], files: days.map((d, i) => file(d, String(i * 10))) }] });
    render(PartitionsTab, { detail: one(['20261130', '20261201']), tz: 'utc', now: NOW });
    expect(labels()).toEqual(['11-30', '12-01']);
    cleanup();
    // Across New Year: 12-31 then 01-01 would not say which years.
    render(PartitionsTab, { detail: one(['20251231', '20260101']), tz: 'utc', now: NOW });
    expect(labels()).toEqual(['2025-12-31', '2026-01-01']);
  });

  it('sorts stably and summarises exactly (u64 counts)', () => {
    const p = parts(5);
    p[2].end = '18446744073709551615';
    const s = summarize(p);
    expect(s.max).toEqual({ partition: 2, messages: 18446744073709551615n });
    expect(s.messages).toBe(18446744073709551615n + 1000n + 1001n + 1003n + 1004n);
    expect(sortPartitions(p, { key: 'bytes', desc: true }).map((x) => x.partition)).toEqual([4, 3, 2, 1, 0]);
    expect(nextSort({ key: 'partition', desc: false }, 'messages')).toEqual({ key: 'messages', desc: true });
    expect(nextSort({ key: 'messages', desc: true }, 'messages')).toEqual({ key: 'messages', desc: false });
    expect(summarize([]).skew).toBeNull();
  });

  it('windows rows by scroll position', () => {
    expect(rowWindow(0, 400, 40, 1000, 0)).toEqual({ start: 0, end: 11 });
    expect(rowWindow(4000, 400, 40, 1000, 2)).toEqual({ start: 98, end: 113 });
    expect(rowWindow(1e9, 400, 40, 1000, 0).end).toBe(1000);
    expect(rowWindow(0, 400, 40, 0)).toEqual({ start: 0, end: 0 });
  });
});

describe('typed messages, decoded', () => {
  it('shows ü and 🚀 in the table and in Fields, never \\u escapes', async () => {
    const detail = await describe_('typed');
    const { getByTestId } = render(MessagesTab, { topic: 'typed', detail, tz: 'utc', link: { partition: 0 } });
    await until(() => rows().length > 0, 'rows');
    const table = rows().map((r) => r.textContent).join('\n');
    expect(table).toContain('ünïcödé');
    expect(table).not.toMatch(/\\u00fc|\\ud83d/);
    // With the year.
    expect(rows()[0].textContent).toMatch(/\b20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\b/);
    cleanup();
    const m: Row = { row: 'message', ...recordedMessage('typed', 0, '1') };
    expect(m.row === 'message' && m.fields_json).toContain('\\u00fc');
    const pane = render(DetailPane, { row: m, tz: 'utc', view: 'fields' });
    const fields = pane.getByTestId('detail-fields').textContent!;
    expect(fields).toContain('"ünïcödé"');
    expect(fields).not.toContain('\\u00fc');
    void getByTestId;
  });
});

describe('time inputs', () => {
  it('take ISO 8601 / RFC 3339 text in the chosen zone, and refuse impossible dates', () => {
    expect(parseTime('2026-11-30T08:00:00Z', 'local')).toBe(Date.UTC(2026, 10, 30, 8) / 1000);
    expect(parseTime('2026-11-30T09:00:00+01:00', 'utc')).toBe(Date.UTC(2026, 10, 30, 8) / 1000);
    expect(parseTime('2026-11-30 08:00', 'utc')).toBe(Date.UTC(2026, 10, 30, 8) / 1000);
    expect(parseTime('2026-02-31 08:00', 'utc')).toBeNull();
    expect(parseTime('2026-11-30 08:00:60', 'utc')).toBeNull();
    expect(parseTime('30/11/2026', 'utc')).toBeNull();
  });

  it('say the zone and the format in the time range box', () => {
    const { getByTestId } = render(TimeRange, { tz: 'local' });
    expect(getByTestId('range-zone').textContent).toBe('(local)');
    const from = getByTestId('range-from') as HTMLInputElement;
    expect(from.type).toBe('text');
    expect(from.placeholder).toBe('from YYYY-MM-DD hh:mm');
    expect(from.title).toMatch(/local time.*RFC 3339/);
  });
});

describe('a search that cannot run', () => {
  it('shows only its error, not "no matches"', async () => {
    const detail = await describe_('chat');
    const { getByTestId } = render(MessagesTab, { topic: 'chat', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('search-input'), { target: { value: '/(unclosed/' } });
    await fireEvent.click(getByTestId('search-go'));
    await until(() => !!document.querySelector('[data-testid=messages-error]'), 'error');
    await until(() => !!document.querySelector('[data-testid=search-failed]'), 'the empty state');
    expect(getByTestId('messages-empty').textContent).not.toMatch(/No matches/);
    expect(getByTestId('messages-error').textContent).toMatch(/invalid regular expression/);
  });
});

describe('the detail pane', () => {
  it('resizes from its edge with the keyboard, within bounds, and remembers the width', async () => {
    const m: Row = { row: 'message', ...recordedMessage('typed', 0, '1') };
    const { getByTestId, component } = render(DetailPane, { row: m, tz: 'utc' });
    const grip = getByTestId('detail-grip');
    const before = Number(grip.getAttribute('aria-valuenow'));
    await fireEvent.keyDown(grip, { key: 'ArrowLeft' });
    expect(Number(grip.getAttribute('aria-valuenow'))).toBe(before + 20);
    expect(localStorage.getItem('twainmq.detailWidth')).toBe(String(before + 20));
    for (let i = 0; i < 100; i++) await fireEvent.keyDown(grip, { key: 'ArrowRight', shiftKey: true });
    expect(Number(grip.getAttribute('aria-valuenow'))).toBe(MIN_DETAIL);
    expect(clampDetail(5000, 1000)).toBe(640);
    void component;
  });

  it('fits the hex view: 8 bytes a line when 16 would scroll, ASCII aligned on the last line', () => {
    const bytes = new TextEncoder().encode('Hello, hex view!!abc');
    const wide = hexDump(bytes, 65536, 16);
    expect(wide.map((l) => l.offset)).toEqual(['0000', '0010']);
    expect(wide[1].hex.length).toBe(wide[0].hex.length);
    expect(wide[1].ascii).toBe('!abc'.padEnd(16, ' '));
    const narrow = hexDump(bytes, 65536, 8);
    expect(narrow.map((l) => l.offset)).toEqual(['0000', '0008', '0010']);
    expect(narrow[0].hex).toBe('48 65 6c 6c 6f 2c 20 68');
    // 72 characters a 16-byte line: at 12px mono (7.2px) 518px, in a 560px pane with padding.
    expect(hexLineChars(16)).toBe(72);
    expect(hexLineChars(8)).toBe(39);
  });

  it('stays responsive with a 4 KiB single-line message', () => {
    const m: Row = { row: 'message', ...recordedMessage('typed', 0, '1') };
    const long: Row = { ...m, row: 'message', kind: 'str', text: '{"k":"' + 'x'.repeat(4080) + '"}', class: null, type_id: null, fields_json: null, fields_pretty: null };
    for (const view of ['text', 'json', 'hex'] as const) {
      const t0 = performance.now();
      const r = render(DetailPane, { row: long, tz: 'utc', view });
      const ms = performance.now() - t0;
      expect(ms).toBeLessThan(500);
      expect(r.getByTestId('detail-pane')).toBeTruthy();
      cleanup();
    }
  });
});
