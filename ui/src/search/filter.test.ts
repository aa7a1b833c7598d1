import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import FilterBox from './FilterBox.svelte';
import { applyCompletion, completions, deleteFilter, looksLikeCel, parseFilter, saveFilter, savedFilters, toQuery, wordAt } from './filter';
import { mock, settle, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().seed();
  mock().calls = [];
  localStorage.clear();
});
afterEach(() => cleanup());

describe('the filter box modes', () => {
  it('tells text, /regex/, key:K and CEL apart, or takes the mode it is given', () => {
    expect(parseFilter('timeout')).toEqual({ mode: 'text', body: 'timeout' });
    expect(parseFilter('connection reset by peer')).toEqual({ mode: 'text', body: 'connection reset by peer' });
    expect(parseFilter('/^err(or)?\\s/')).toEqual({ mode: 'regex', body: '^err(or)?\\s' });
    expect(parseFilter('key: 42')).toEqual({ mode: 'key', body: '42' });
    for (const cel of ['value.country == "DE" && value.amount > 100', 'key in [1, 2, 3]', 'text.contains("timeout")', 'timestamp > timestamp("2026-11-30T00:00:00Z")', 'size < 10', 'has(value.items)'])
      expect(parseFilter(cel).mode, cel).toBe('cel');
    expect(looksLikeCel('level=error')).toBe(false);
    expect(looksLikeCel('a -> b')).toBe(false);
    // An explicit mode wins.
    expect(parseFilter('a == b', 'text')).toEqual({ mode: 'text', body: 'a == b' });
    expect(parseFilter('(unclosed', 'regex')).toEqual({ mode: 'regex', body: '(unclosed' });
    expect(parseFilter('hello', 'cel')).toEqual({ mode: 'cel', body: 'hello' });
  });

  it('builds the query of each mode with the time range', () => {
    const opts = { caseSensitive: true, partitions: [1], since: 10, until: 20 };
    expect(toQuery(parseFilter('key:ada'), opts)).toEqual({ key: 'ada', text: null, regex: false, case_sensitive: true, partitions: [1], since: 10, until: 20, filter: null });
    expect(toQuery(parseFilter('/a.b/'), opts)).toMatchObject({ text: 'a.b', regex: true, filter: null, key: null });
    expect(toQuery(parseFilter('value.qty > 1'), opts)).toMatchObject({ text: null, regex: false, filter: 'value.qty > 1' });
  });

  it('shows the mode in use, and the error of a bad expression with a caret at its place', async () => {
    const { getByTestId, queryByTestId } = render(FilterBox, { topic: 'orders', debounceMs: 10 });
    const input = getByTestId('search-input') as HTMLInputElement;
    await fireEvent.input(input, { target: { value: 'lamp' } });
    expect(getByTestId('filter-mode-badge').textContent).toBe('text');
    await fireEvent.input(input, { target: { value: 'timestamp > "2026-01-01"' } });
    expect(getByTestId('filter-mode-badge').textContent).toBe('CEL');
    await until(() => !!queryByTestId('filter-error'), 'the error');
    expect(getByTestId('filter-error').textContent).toMatch(/line 1, column 11: `timestamp` .* cannot be compared with "2026-01-01"/);
    expect(getByTestId('filter-caret').textContent).toBe('timestamp > "2026-01-01"\n          ^');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect((getByTestId('search-go') as HTMLButtonElement).disabled).toBe(true);
    // Checked once typing stops, through the backend.
    expect(mock().calls.filter((c) => c[0] === 'checkFilter').map((c) => c[1])).toEqual(['timestamp > "2026-01-01"']);
    await fireEvent.input(input, { target: { value: 'key in [1, 2, 3]' } });
    await until(() => !queryByTestId('filter-error'), 'the error gone');
    expect((getByTestId('search-go') as HTMLButtonElement).disabled).toBe(false);
    // Forced to text, the same input is not checked as CEL.
    await fireEvent.change(getByTestId('filter-mode'), { target: { value: 'text' } });
    expect(getByTestId('filter-mode-badge').textContent).toBe('text');
  });

  it('an error on a later line shows that line under the caret', async () => {
    const { getByTestId, queryByTestId } = render(FilterBox, { topic: 'orders', debounceMs: 10, value: 'value.qty > 4 &&\n  nosuch == 1' });
    await until(() => !!queryByTestId('filter-error'), 'the error');
    expect(getByTestId('filter-error').textContent).toMatch(/line 2, column 3: unknown variable `nosuch`/);
    expect(getByTestId('filter-caret').textContent).toBe('  nosuch == 1\n  ^');
  });
});

describe('completion', () => {
  it('offers the variables and the JSON fields seen in the topic', () => {
    expect(wordAt('key == 1 && val', 15)).toEqual({ start: 12, word: 'val' });
    const fields = ['value.id', 'value.item', 'value.price', 'value.qty'];
    expect(completions('ti', fields).map((c) => c.insert)).toEqual(['timestamp']);
    expect(completions('val', fields).map((c) => c.insert)).toEqual(['value', ...fields]);
    expect(completions('value.i', fields).map((c) => c.insert)).toEqual(['value.id', 'value.item']);
    expect(completions('text.con', fields).map((c) => c.insert)).toEqual(['text.contains(']);
    expect(completions('', fields)).toEqual([]);
    expect(applyCompletion('value.pr > 1', 0, 8, { insert: 'value.price', label: '', doc: '' })).toEqual({ text: 'value.price > 1', caret: 11 });
  });

  it('completes in the box from the fields the backend sampled, with the keyboard', async () => {
    const { getByTestId, queryByTestId, getAllByTestId } = render(FilterBox, { topic: 'orders', debounceMs: 10 });
    await until(() => mock().calls.some((c) => c[0] === 'topicFields'), 'fields asked for');
    await settle();
    const input = getByTestId('search-input') as HTMLInputElement;
    input.value = 'value.q';
    input.setSelectionRange(7, 7);
    await fireEvent.input(input);
    await until(() => !!queryByTestId('filter-completions'), 'the list');
    // orders' typed fields, as the backend sampled them: id, item, order, price, qty, reason.
    expect(getAllByTestId('filter-completion').map((li) => li.textContent!.trim().split(' ')[0])).toEqual(['value.qty']);
    await fireEvent.keyDown(input, { key: 'Tab' });
    expect(input.value).toBe('value.qty');
    expect(queryByTestId('filter-completions')).toBeNull();
    input.value = 'value.qty > 1 && k';
    input.setSelectionRange(18, 18);
    await fireEvent.input(input);
    await until(() => !!queryByTestId('filter-completions'), 'the list');
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.value).toBe('value.qty > 1 && key');
  });
});

describe('saved filters', () => {
  it('are kept per topic in the prefs, picked and deleted from a menu', async () => {
    expect(saveFilter('orders', { name: 'big', expr: 'value.price > 300' })).toHaveLength(1);
    saveFilter('orders', { name: 'all refunds', expr: 'class == "Refund"' });
    saveFilter('chat', { name: 'ada', expr: 'key:ada' });
    expect(savedFilters('orders').map((f) => f.name)).toEqual(['all refunds', 'big']);
    expect(JSON.parse(localStorage.getItem('twainmq.savedFilters')!).chat).toEqual([{ name: 'ada', expr: 'key:ada' }]);
    deleteFilter('chat', 'ada');
    expect(savedFilters('chat')).toEqual([]);

    const submitted = vi.fn();
    const { getByTestId, getAllByTestId } = render(FilterBox, { topic: 'orders', debounceMs: 10, onsubmit: submitted });
    await fireEvent.click(getByTestId('filter-saved'));
    expect(getAllByTestId('filter-saved-item').map((e) => e.textContent!.trim())).toEqual([
      expect.stringContaining('all refunds'),
      expect.stringContaining('big'),
    ]);
    // Save what is typed, under a name.
    await fireEvent.input(getByTestId('search-input'), { target: { value: 'kind == "dataclass"' } });
    await fireEvent.input(getByTestId('filter-save-name'), { target: { value: 'typed' } });
    await fireEvent.click(getByTestId('filter-save'));
    expect(savedFilters('orders').map((f) => f.name)).toEqual(['all refunds', 'big', 'typed']);
    // Delete one; pick another: it fills the box and searches.
    await fireEvent.click(getAllByTestId('filter-saved-delete')[0]);
    expect(savedFilters('orders').map((f) => f.name)).toEqual(['big', 'typed']);
    await fireEvent.click(getAllByTestId('filter-saved-item')[0].querySelector('button')!);
    expect((getByTestId('search-input') as HTMLInputElement).value).toBe('value.price > 300');
    expect(submitted).toHaveBeenCalledOnce();
  });
});
