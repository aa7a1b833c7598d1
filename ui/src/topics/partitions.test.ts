// The Partitions tab of a 1,000-partition topic: sums, sorts, a window of rows, day files.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import Sidebar from '../store/Sidebar.svelte';
import PartitionsTab from './PartitionsTab.svelte';
import MessagesTab from '../messages/MessagesTab.svelte';
import DetailPane from '../messages/DetailPane.svelte';
import TimeRange from '../search/TimeRange.svelte';
import { app } from '../app/app.svelte';
import { hexDump, hexLineChars, parseTime } from '../shared/format';
import { nextSort, sortPartitions, summarize } from './partitions';
import { clampDetail, MIN_DETAIL } from '../messages/paneWidth';
import { rowWindow } from '../shared/virtual';
import type { GroupSummary, PartitionDetail, Row, TopicDetail, TopicSummary } from '../backend';
import { describe_, mock, recordedMessage, rows, until } from '../../tests/helpers';
import { NOW, bigStore, topic } from '../../tests/stores';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  localStorage.clear();
  mock().seed();
  app.now = NOW;
  app.topic = null;
  app.group = null;
});
afterEach(() => cleanup());

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
