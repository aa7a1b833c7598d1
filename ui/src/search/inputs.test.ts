// The search's inputs: time inputs in the chosen zone, and a search that cannot run says why.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import Sidebar from '../store/Sidebar.svelte';
import PartitionsTab from '../topics/PartitionsTab.svelte';
import MessagesTab from '../messages/MessagesTab.svelte';
import DetailPane from '../messages/DetailPane.svelte';
import TimeRange from './TimeRange.svelte';
import { app } from '../app/app.svelte';
import { hexDump, hexLineChars, parseTime } from '../shared/format';
import { nextSort, sortPartitions, summarize } from '../topics/partitions';
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
