import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import MessagesTab from './MessagesTab.svelte';
import TableEmpty from './TableEmpty.svelte';
import SearchBanner from '../search/SearchBanner.svelte';
import { describe_, mock, rows, until } from '../../tests/helpers';
import { parseAgo } from '../shared/format';
import type { Run } from '../search/searchRun.svelte';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().seed();
  mock().calls = [];
  mock().searchChunk = 1000;
  mock().searchDelay = 0;
});
afterEach(() => cleanup());

const run = (over: Partial<Run>): Run => ({ id: 1, gen: 1, state: 'done', scanned: 1500n, total: 1500n, hits: 0n, error: '', label: 'CEL value.contry == "DE"', ...over });

describe('search results and the time jump', () => {
  it('marks what a text search matched in each hit', async () => {
    const detail = await describe_('firehose');
    const { getByTestId } = render(MessagesTab, { topic: 'firehose', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('search-input'), { target: { value: 'level=error' } });
    await fireEvent.click(getByTestId('search-go'));
    await until(() => getByTestId('search-progress').dataset.state === 'done' && rows().length > 0, 'hits');
    for (const r of rows()) {
      const marks = [...r.querySelectorAll('[data-testid=search-mark]')].map((m) => m.textContent);
      expect(marks).toEqual(['level=error']);
    }
  });

  it('takes "1h ago" in Go to time, and a jump error goes when a search starts', async () => {
    const now = 1_800_000_000;
    expect(parseAgo('1h ago', now)).toBe(now - 3600);
    expect(parseAgo('1h30m ago', now)).toBe(now - 5400);
    expect(parseAgo('2d', now)).toBe(now - 172800);
    expect(parseAgo('ago', now)).toBeNull();
    expect(parseAgo('1y ago', now)).toBeNull();
    const detail = await describe_('firehose');
    const { getByTestId, queryByTestId } = render(MessagesTab, { topic: 'firehose', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    await fireEvent.input(getByTestId('jump-time-input'), { target: { value: 'yesterday' } });
    await fireEvent.click(getByTestId('jump-time-go'));
    await until(() => !!queryByTestId('messages-error'), 'the error');
    expect(getByTestId('messages-error').textContent).toMatch(/type a time like .* or a time ago such as 1h ago/);
    // "1h ago" is a time: whatever it finds, never "type a time".
    await fireEvent.input(getByTestId('jump-time-input'), { target: { value: '1h ago' } });
    await fireEvent.click(getByTestId('jump-time-go'));
    await until(() => !/type a time/.test(queryByTestId('messages-error')?.textContent ?? ''), 'taken');
    await fireEvent.input(getByTestId('jump-time-input'), { target: { value: 'nonsense' } });
    await fireEvent.click(getByTestId('jump-time-go'));
    await until(() => !!queryByTestId('messages-error'), 'the error again');
    await fireEvent.input(getByTestId('search-input'), { target: { value: 'level=error' } });
    await fireEvent.click(getByTestId('search-go'));
    await until(() => getByTestId('search-progress').dataset.state === 'done', 'searched');
    expect(queryByTestId('messages-error')).toBeNull();
  });

  it('says which field a filter that found nothing reads that no message has, not "match case"', () => {
    const { getAllByTestId, container } = render(TableEmpty, {
      searching: true,
      run: run({}),
      partitions: 4,
      partition: null,
      ranged: false,
      onclear: () => {},
      missing: [{ field: 'value.contry', near: ['value.country', 'value.city'] }],
      filter: true,
    });
    expect(getAllByTestId('search-missing-field')[0].textContent!.replace(/\s+/g, ' ').trim()).toBe('No message searched has the field value.contry; did you mean value.country or value.city?');
    expect(container.textContent).not.toMatch(/match case/);
    cleanup();
    const plain = render(TableEmpty, { searching: true, run: run({}), partitions: 4, partition: null, ranged: false, onclear: () => {}, missing: [], filter: true });
    expect(plain.container.textContent).not.toMatch(/match case/);
  });

  it('says "1 match", not "1 matches"', () => {
    const one = render(SearchBanner, { run: run({ hits: 1n }), oncancel: () => {}, onclear: () => {} });
    expect(one.getByTestId('search-count').textContent).toMatch(/^\s*1 match ·/);
    cleanup();
    const two = render(SearchBanner, { run: run({ hits: 2n }), oncancel: () => {}, onclear: () => {} });
    expect(two.getByTestId('search-count').textContent).toMatch(/^\s*2 matches ·/);
  });
});
