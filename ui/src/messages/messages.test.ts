import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import MessagesTab from './MessagesTab.svelte';
import { describe_, mock, recordedMessage, recording, rows, settle, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().seed();
  mock().calls = [];
  mock().searchChunk = 1000;
  mock().searchDelay = 0;
});
afterEach(() => cleanup());

const pageCalls = () => mock().calls.filter((c) => c[0] === 'readPage');

describe('the messages table', () => {
  it('renders only a window of rows of the 1,500-message topic, fetched in pages of at most 500', async () => {
    const detail = await describe_('firehose');
    expect(detail.summary.messages).toBe('1500');
    const { getByTestId } = render(MessagesTab, { topic: 'firehose', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    const shown = rows();
    // The viewport is 440 px of 22 px rows: about 20 rows, never thousands.
    expect(shown.length).toBeGreaterThanOrEqual(15);
    expect(shown.length).toBeLessThanOrEqual(30);
    expect(shown[0].dataset.offset).toBe('0');
    expect(shown[0].dataset.partition).toBe('0');
    expect(getByTestId('row-range').textContent).toMatch(/1–20 of 1,500/);
    const calls = pageCalls();
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThanOrEqual(3);
    for (const c of calls) expect(c[4] as number).toBeLessThanOrEqual(500);
  });

  it('jumps to an offset deep in the topic, reading only the pages there', async () => {
    const detail = await describe_('firehose');
    const { getByTestId } = render(MessagesTab, { topic: 'firehose', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    await fireEvent.input(getByTestId('jump-offset-input'), { target: { value: '1234' } });
    await fireEvent.click(getByTestId('jump-offset-go'));
    await until(() => rows().some((r) => r.dataset.offset === '1234'), 'row 1234');
    const row = rows().find((r) => r.dataset.offset === '1234')!;
    expect(row.parentElement!.getAttribute('aria-selected')).toBe('true');
    expect(row.textContent).toContain('event #1234 ');
    expect(rows().length).toBeLessThanOrEqual(30);
    const froms = pageCalls().map((c) => BigInt(c[3] as string));
    expect(froms.some((f) => f <= 1234n && 1234n < f + 500n)).toBe(true);
    // Not the pages between the top and there.
    expect(froms.some((f) => f === 500n)).toBe(false);
  });

  it('says why an offset cannot be shown', async () => {
    const detail = await describe_('sensors');
    const { getByTestId } = render(MessagesTab, { topic: 'sensors', detail, tz: 'utc' });
    await fireEvent.change(getByTestId('jump-offset-partition'), { target: { value: '1' } });
    await fireEvent.input(getByTestId('jump-offset-input'), { target: { value: '5' } });
    await fireEvent.click(getByTestId('jump-offset-go'));
    // The fixture's sensors P1 lost its first file (0-9): it starts at 10.
    expect(getByTestId('messages-error').textContent).toMatch(/partition 1 starts at offset 10\b/);
  });

  it('shows damaged lines as warning rows with file:line and the problem', async () => {
    const detail = await describe_('orders');
    render(MessagesTab, { topic: 'orders', detail, tz: 'utc', link: { partition: 1 } });
    await until(() => rows().length > 0, 'rows');
    const d = rows().find((r) => r.dataset.kind === 'damaged')!;
    expect(d.dataset.partition).toBe('1');
    expect(d.dataset.offset).toBe('7');
    expect(d.textContent).toMatch(/damaged line · 1-\d{8}_0\.tmf:8 · bad key: .* not a base85 character/);
  });

  it('renders payloads as text only: an HTML payload creates no element', async () => {
    const detail = await describe_('chat');
    const { container, getByTestId } = render(MessagesTab, { topic: 'chat', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    const xss = rows().find((r) => r.textContent!.includes('<img src=x onerror=alert(1)>'));
    expect(xss, 'the payload shows literally').toBeTruthy();
    expect(container.querySelector('img')).toBeNull();
    expect(document.querySelector('img')).toBeNull();
    // And in the detail pane.
    await fireEvent.click(xss!.parentElement!);
    await fireEvent.dblClick(xss!.parentElement!);
    await settle();
    expect(getByTestId('detail-text').textContent).toBe('<img src=x onerror=alert(1)>');
    expect(document.querySelector('img')).toBeNull();
  });

  it('previews typed messages as Class {json} and bytes as hex', async () => {
    const orders = await describe_('orders');
    render(MessagesTab, { topic: 'orders', detail: orders, tz: 'utc', link: { partition: 0 } });
    await until(() => rows().length > 0, 'rows');
    expect(rows()[2].textContent).toContain('Order {"id":123456789012345678901234567890,');
    cleanup();
    const sensors = await describe_('sensors');
    render(MessagesTab, { topic: 'sensors', detail: sensors, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    const hex = recordedMessage('sensors', 0, '0').hex!;
    expect(rows()[0].textContent).toContain(hex.slice(0, 8).replace(/(..)(?!$)/g, '$1 '));
  });
});

describe('search', () => {
  it('counts matches live, then pages every hit into the table by index; Cancel stops it', async () => {
    mock().searchChunk = 20;
    mock().searchDelay = 20;
    const detail = await describe_('firehose');
    const { getByTestId, queryByTestId } = render(MessagesTab, { topic: 'firehose', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('search-input'), { target: { value: 'level=error' } });
    await fireEvent.click(getByTestId('search-go'));
    await until(() => getByTestId('search-progress').dataset.state === 'running' && /[1-9]\d* matches so far in/.test(getByTestId('search-count').textContent!), 'a running count');
    expect(getByTestId('search-count').textContent).toMatch(/^\s*[\d,]+ matches so far in [\d,.]+ (k )?· \d+%\s*$/);
    // The first hits are in the table while the scan still runs (those settled so far); the row
    // range says they are some of those found, not a second, different count.
    await until(() => getByTestId('search-progress').dataset.state === 'running' && rows().length > 0, 'first hits while it runs');
    const listed = getByTestId('row-range').textContent!.replace(/\s+/g, ' ');
    if (getByTestId('search-progress').dataset.state === 'running') expect(listed).toMatch(/of [\d,]+ listed so far, in order \(of [\d,]+ found\)/);
    expect(rows().every((r) => r.textContent!.includes('level=error'))).toBe(true);
    await until(() => getByTestId('search-progress').dataset.state === 'done', 'done');
    // Every one of the 231 hits is there: the first page now, the rest as they come on screen.
    expect(getByTestId('search-count').textContent).toMatch(/231 matches · 1,500 of 1,500 scanned/);
    await until(() => getByTestId('row-range').textContent!.includes('of 231 hits'), 'all hits browsable');
    expect(rows().every((r) => r.textContent!.includes('level=error'))).toBe(true);
    const reads = () => mock().calls.filter((c) => c[0] === 'searchRows');
    // The first page was read again as it filled, and no further once full.
    const firstPageReads = reads().filter((c) => c[2] === '0').length;
    expect(firstPageReads).toBeGreaterThan(1);
    await settle();
    expect(reads().filter((c) => c[2] === '0').length).toBe(firstPageReads);
    await fireEvent.keyDown(document.body, { key: 'End' });
    await until(() => rows().some((r) => r.textContent!.includes('level=error')) && reads().length > 1, 'the last hits');
    expect(reads().some((c) => c[2] === '200')).toBe(true);
    const hits = recording.searches.find((x) => x.topic === 'firehose')!.rows;
    await until(() => rows().some((r) => r.dataset.offset === hits[hits.length - 1].offset), 'the last hit');

    // A new search; Cancel (or Esc) stops it within a step.
    const firstId = reads()[0][1];
    const readsBefore = reads().length;
    await fireEvent.click(getByTestId('search-go'));
    await until(() => getByTestId('search-progress').dataset.state === 'running', 'running again');
    await fireEvent.keyDown(getByTestId('search-input'), { key: 'Escape' });
    await settle();
    expect(getByTestId('search-progress').dataset.state).toBe('cancelled');
    expect(mock().calls.some((c) => c[0] === 'cancelSearch')).toBe(true);
    expect(queryByTestId('search-cancel')).toBeNull();
    // The first search's rows were all of one session, and none is read once the new one started
    // (the new one may read its first hits before Esc reaches it).
    expect(new Set(reads().slice(0, readsBefore).map((c) => c[1]))).toEqual(new Set([firstId]));
    expect(reads().slice(readsBefore).every((c) => c[1] !== firstId)).toBe(true);
  });

  it('searches with a CEL filter, and never scans a bad expression', async () => {
    const detail = await describe_('orders');
    const { getByTestId, queryByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('search-input'), { target: { value: 'value.qty >' } });
    expect(getByTestId('filter-mode-badge').textContent).toBe('CEL');
    await until(() => !!queryByTestId('filter-error'), 'the error under the box', 2000);
    expect(getByTestId('filter-error').textContent).toMatch(/line 1, column 12: Syntax error/);
    expect(getByTestId('filter-caret').textContent).toBe('value.qty >\n           ^');
    expect((getByTestId('search-go') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.submit(getByTestId('search-input').closest('form')!);
    expect(mock().calls.some((c) => c[0] === 'search')).toBe(false);
    expect(queryByTestId('messages-empty')?.textContent ?? '').not.toMatch(/No matches/);

    await fireEvent.input(getByTestId('search-input'), { target: { value: 'value.qty >= 4 && value.price > 100.0' } });
    await until(() => !queryByTestId('filter-error') && !(getByTestId('search-go') as HTMLButtonElement).disabled, 'valid');
    await fireEvent.click(getByTestId('search-go'));
    await until(() => getByTestId('search-progress').dataset.state === 'done', 'done');
    expect(getByTestId('search-count').textContent).toMatch(/121 matches/);
    const q = mock().calls.find((c) => c[0] === 'search')![2] as { filter: string; text: string | null };
    expect(q.filter).toBe('value.qty >= 4 && value.price > 100.0');
    expect(q.text).toBeNull();
  });

  it('bounds a search by the time range', async () => {
    const detail = await describe_('orders');
    const { getByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc' });
    // The recorded search: class == "Order" from 2026-11-29 to 2026-11-30, UTC.
    await fireEvent.input(getByTestId('range-from'), { target: { value: '2026-11-29T00:00:00Z' } });
    await fireEvent.input(getByTestId('range-to'), { target: { value: '2026-11-30T00:00:00Z' } });
    await fireEvent.click(getByTestId('range-apply'));
    await fireEvent.input(getByTestId('search-input'), { target: { value: 'class == "Order"' } });
    await fireEvent.click(getByTestId('search-go'));
    await until(() => getByTestId('search-progress').dataset.state === 'done', 'done');
    const q = mock().calls.find((c) => c[0] === 'search')![2] as { since: number; until: number };
    expect([q.since, q.until]).toEqual([Date.UTC(2026, 10, 29) / 1000, Date.UTC(2026, 10, 30) / 1000]);
    expect(getByTestId('search-count').textContent).toMatch(/130 matches · 143 of 143 scanned/);
    expect(getByTestId('search-banner').textContent).toMatch(/2026-11-29 00:00:00\.000 – 2026-11-30 00:00:00\.000/);
    await until(() => rows().length > 0, 'hits');
    expect(rows().every((r) => /^\s*\d+\s*\d+\s*2026-11-29 /.test(r.textContent!))).toBe(true);
  });

  it('runs a search again over a new time range: no hit outside the range stays on screen', async () => {
    const detail = await describe_('orders');
    const { getByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('search-input'), { target: { value: 'class == "Order"' } });
    await until(() => !(getByTestId('search-go') as HTMLButtonElement).disabled, 'valid');
    await fireEvent.click(getByTestId('search-go'));
    await until(() => getByTestId('search-progress').dataset.state === 'done', 'the search over all time');
    const allTime = getByTestId('search-count').textContent!;
    expect(allTime).not.toMatch(/130 matches/);
    // A range applied (not Search pressed): the search runs again over it.
    await fireEvent.input(getByTestId('range-from'), { target: { value: '2026-11-29T00:00:00Z' } });
    await fireEvent.input(getByTestId('range-to'), { target: { value: '2026-11-30T00:00:00Z' } });
    await fireEvent.click(getByTestId('range-apply'));
    await until(() => mock().calls.filter((c) => c[0] === 'search').length === 2, 'a second search');
    const q = mock().calls.filter((c) => c[0] === 'search')[1][2] as { since: number; until: number; filter: string };
    expect([q.since, q.until, q.filter]).toEqual([Date.UTC(2026, 10, 29) / 1000, Date.UTC(2026, 10, 30) / 1000, 'class == "Order"']);
    await until(() => getByTestId('search-progress').dataset.state === 'done', 'the ranged search');
    expect(getByTestId('search-count').textContent).toMatch(/130 matches · 143 of 143 scanned/);
    await until(() => rows().length > 0, 'hits');
    expect(rows().every((r) => /^\s*\d+\s*\d+\s*2026-11-29 /.test(r.textContent!))).toBe(true);
  });

  it('shows a backend error (a bad regex) inline', async () => {
    const detail = await describe_('chat');
    const { getByTestId } = render(MessagesTab, { topic: 'chat', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('search-input'), { target: { value: '/(unclosed/' } });
    expect(getByTestId('filter-mode-badge').textContent).toBe('regex');
    await fireEvent.click(getByTestId('search-go'));
    await until(() => !!document.querySelector('[data-testid=messages-error]'), 'error');
    expect(getByTestId('messages-error').textContent).toMatch(/invalid regular expression/);
  });
});

describe('keyboard and time', () => {
  it('a single click selects a row and shows it; a shift or ctrl click only picks', async () => {
    const detail = await describe_('orders');
    const { getByTestId, queryByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc', link: { partition: 0 } });
    await until(() => rows().length > 3, 'rows');
    await fireEvent.click(rows()[2].parentElement!, { ctrlKey: true });
    expect(queryByTestId('detail-pane')).toBeNull();
    await fireEvent.click(rows()[3].parentElement!);
    expect(getByTestId('detail-pane').textContent).toContain(`#${rows()[3].dataset.offset}`);
    await fireEvent.click(rows()[1].parentElement!);
    expect(getByTestId('detail-pane').textContent).toContain(`#${rows()[1].dataset.offset}`);
  });

  it('J/K and arrows move the selection, Enter opens the detail, Esc closes it, / and G focus their fields', async () => {
    const detail = await describe_('orders');
    const { getByTestId, queryByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc', link: { partition: 0 } });
    await until(() => rows().length > 0, 'rows');
    const selected = () => document.querySelector<HTMLElement>('[aria-selected=true] [data-testid=message-row]')?.dataset.offset;
    await fireEvent.keyDown(document.body, { key: 'j' });
    await fireEvent.keyDown(document.body, { key: 'j' });
    await fireEvent.keyDown(document.body, { key: 'ArrowDown' });
    await fireEvent.keyDown(document.body, { key: 'k' });
    expect(selected()).toBe('1');
    expect(queryByTestId('detail-pane')).toBeNull();
    await fireEvent.keyDown(document.body, { key: 'Enter' });
    expect(getByTestId('detail-pane').textContent).toContain('#1');
    await fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(queryByTestId('detail-pane')).toBeNull();
    await fireEvent.keyDown(document.body, { key: '/' });
    expect(document.activeElement).toBe(getByTestId('search-input'));
    (document.activeElement as HTMLElement).blur();
    await fireEvent.keyDown(document.body, { key: 'g' });
    expect(document.activeElement).toBe(getByTestId('jump-offset-input'));
    (document.activeElement as HTMLElement).blur();
    await fireEvent.keyDown(document.body, { key: 'f' });
    expect(getByTestId('follow-toggle').getAttribute('aria-pressed')).toBe('true');
    // Keys typed into a field stay there.
    await fireEvent.keyDown(getByTestId('search-input'), { key: 'j' });
    expect(selected()).not.toBe('2');
  });

  it('jumps to the first message at or after a time', async () => {
    const detail = await describe_('firehose');
    const { getByTestId } = render(MessagesTab, { topic: 'firehose', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    // Message 1200's time: the engine says 1200 is the first message at or after it.
    const r = await mock().backend().readPage('firehose', 0, '1200', 1);
    const ts = r.status === 'ok' && r.data.rows[0].row === 'message' ? r.data.rows[0].timestamp! : 0;
    const d = new Date(ts * 1000);
    const text = d.toISOString().replace('T', ' ').replace('Z', '');
    await fireEvent.input(getByTestId('jump-time-input'), { target: { value: text } });
    await fireEvent.click(getByTestId('jump-time-go'));
    expect(mock().calls.filter((c) => c[0] === 'offsetAtTime').map((c) => c[3])).toEqual([ts]);
    await until(() => rows().some((x) => x.dataset.offset === '1200'), 'row 1200');
    expect(document.querySelector<HTMLElement>('[aria-selected=true] [data-testid=message-row]')?.dataset.offset).toBe('1200');
    expect((getByTestId('jump-offset-input') as HTMLInputElement).value).toBe('1200');
  });
});
