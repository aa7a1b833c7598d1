// The sidebar over a big store: 5,000 topics as a window of rows, a filter, the counts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import Sidebar from './Sidebar.svelte';
import PartitionsTab from '../topics/PartitionsTab.svelte';
import MessagesTab from '../messages/MessagesTab.svelte';
import DetailPane from '../messages/DetailPane.svelte';
import TimeRange from '../search/TimeRange.svelte';
import { app } from '../app/app.svelte';
import { hexDump, hexLineChars, parseTime } from '../shared/format';
import { nextSort, sortPartitions, summarize } from '../topics/partitions';
import { clampDetail, MIN_DETAIL } from '../messages/paneWidth';
import { rowWindow } from '../shared/virtual';
import type { GroupSummary, PartitionDetail, Row, TopicDetail, TopicSummary } from '../backend';
import { cpuMs, describe_, mock, recordedMessage, rows, until } from '../../tests/helpers';
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

describe('the sidebar over a big store', () => {
  it('renders 5,000 topics as a window of rows, filters as you type, says N of M, keeps the groups reachable', async () => {
    const store = bigStore();
    app.info = { root: '/big', watching: true, shrunk: [], name_problems: [], read_only: null, ...store };
    const t0 = cpuMs();
    const { getByTestId, queryByTestId } = render(Sidebar);
    const renderMs = cpuMs() - t0;
    const rendered = () => document.querySelectorAll('[data-testid=topic-list] [role=option]').length;
    expect(rendered()).toBeGreaterThan(10);
    expect(rendered()).toBeLessThan(100); // not 5,000
    expect(getByTestId('topics-count').textContent).toBe('5,000');
    // The groups are there without scrolling past the topics.
    expect(getByTestId('group-item-group-0')).toBeTruthy();
    expect(getByTestId('groups-count').textContent).toBe('40');

    const t1 = cpuMs();
    await fireEvent.input(getByTestId('sidebar-filter'), { target: { value: 'topic-12' } });
    const filterMs = cpuMs() - t1;
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
    // Measured in jsdom (no layout, so an upper bound on the real thing's script time), in CPU
    // time: what the work costs, not how long a loaded machine took to give it the CPU.
    console.info(`sidebar, 5,000 topics: first render ${renderMs.toFixed(0)} ms, one filter keystroke ${filterMs.toFixed(0)} ms of CPU`);
    expect(renderMs).toBeLessThan(1500);
    expect(filterMs).toBeLessThan(500);
  });

  it('collapses a section and remembers it', async () => {
    app.info = { root: '/big', watching: true, shrunk: [], name_problems: [], read_only: null, ...bigStore(50) };
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
    app.info = { root: '/s', watching: true, shrunk: [], name_problems: [], read_only: null, topics: [topic(1, { partitions: 1000, messages: '6000' }), topic(2, { messages: '12345' })], groups: [] };
    const { getByTestId } = render(Sidebar);
    const item = getByTestId('topic-item-topic-0001');
    expect(item.querySelector('[data-testid=topic-count]')!.textContent).toBe('6,000');
    expect(item.textContent).toMatch(/1,000 P ·/);
    expect(getByTestId('topic-item-topic-0002').querySelector('[data-testid=topic-count]')!.textContent).toBe('12.3 k');
  });

  it('shows last write as the newest message’s time, not the file’s', () => {
    app.info = { root: '/s', watching: true, shrunk: [], name_problems: [], read_only: null, topics: [topic(1, { last_write: NOW / 1000 - 2, last_message: NOW / 1000 - 3 * 86400 })], groups: [] };
    const { getByTestId } = render(Sidebar);
    expect(getByTestId('topic-last').textContent).toBe('3 d ago');
    expect(getByTestId('topic-item-topic-0001').getAttribute('title')).toMatch(/last message 2026-11-28 12:00:00\.000 \(UTC\)/);
  });

  it('moves through the filtered topics with the keyboard, from the filter box down', async () => {
    app.info = { root: '/big', watching: true, shrunk: [], name_problems: [], read_only: null, ...bigStore(300) };
    const { getByTestId } = render(Sidebar);
    await fireEvent.input(getByTestId('sidebar-filter'), { target: { value: 'topic-02' } });
    await fireEvent.keyDown(getByTestId('sidebar-filter'), { key: 'ArrowDown' });
    await until(() => (document.activeElement as HTMLElement | null)?.dataset.key === 'topic-0200', 'the first match focused');
    await fireEvent.keyDown(getByTestId('topic-list'), { key: 'End' });
    await until(() => app.topic === 'topic-0299', 'the last match chosen');
  });
});

describe('the sidebar between stores', () => {
  it('starts unfiltered in the next store opened', async () => {
    app.info = { root: '/first', watching: true, shrunk: [], name_problems: [], read_only: null, topics: [topic(1), topic(2)], groups: [] };
    const { getByTestId, queryByTestId } = render(Sidebar);
    await fireEvent.input(getByTestId('sidebar-filter'), { target: { value: 'nothing-like-it' } });
    expect(queryByTestId('topic-item-topic-0001')).toBeNull();
    app.info = { root: '/second', watching: true, shrunk: [], name_problems: [], read_only: null, topics: [topic(7), topic(8)], groups: [] };
    await until(() => !!queryByTestId('topic-item-topic-0007'), "the next store's topics");
    expect((getByTestId('sidebar-filter') as HTMLInputElement).value).toBe('');
    // A refresh of the same store keeps what was typed.
    await fireEvent.input(getByTestId('sidebar-filter'), { target: { value: '0008' } });
    app.info = { root: '/second', watching: true, shrunk: [], name_problems: [], read_only: null, topics: [topic(7), topic(8), topic(9)], groups: [] };
    await until(() => queryByTestId('topic-item-topic-0007') === null, 'still filtered');
    expect((getByTestId('sidebar-filter') as HTMLInputElement).value).toBe('0008');
  });

  it('names counts of one in the singular', () => {
    app.info = { root: '/s', watching: true, shrunk: [], name_problems: [], read_only: null, topics: [topic(1, { partitions: 1, messages: '1' })], groups: [] };
    const { getByTestId } = render(Sidebar);
    expect(getByTestId('topic-item-topic-0001').getAttribute('title')).toMatch(/^topic-0001: 1 message in 1 partition, /);
  });
});
