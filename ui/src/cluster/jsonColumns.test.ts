import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterInfo, MessageRow, Page } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, ok, resetBackend } from './testBackend';

import { fieldText, parsePath } from './jsonColumns';
import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));
beforeEach(() => {
  resetBackend();
  clusterView.topic = null;
  clusterView.info = null;
  clusterView.columns = [];
});
afterEach(() => cleanup());

describe('columns from JSON fields', () => {
  it('read a path, and say what is wrong with one', () => {
    expect(parsePath('value.customer.id')).toEqual([{ field: 'customer' }, { field: 'id' }]);
    expect(parsePath('items[2].sku')).toEqual([{ field: 'items' }, { index: 2 }, { field: 'sku' }]);
    expect(parsePath('value.')).toMatch(/name a field of the value/);
    expect(parsePath('a..b')).toMatch(/is not a field path/);
    expect(parsePath('[0]')).toMatch(/starts with an index/);
    expect(parsePath('a.')).toMatch(/is not a field path/);
  });

  it('take the field exactly: numbers as written, strings unquoted, objects compact, nothing when absent', () => {
    const text = '{"id": 12345678901234567890, "name": "Zoë \\"Z\\"", "items": [{"sku": "A1"}, {"sku": "B2"}], "tags": {"x": 1}}';
    expect(fieldText(text, parsePath('id') as never)).toBe('12345678901234567890');
    expect(fieldText(text, parsePath('name') as never)).toBe('Zoë "Z"');
    expect(fieldText(text, parsePath('items[1].sku') as never)).toBe('B2');
    expect(fieldText(text, parsePath('tags') as never)).toBe('{"x":1}');
    expect(fieldText(text, parsePath('items[5].sku') as never)).toBe('');
    expect(fieldText('not json', parsePath('id') as never)).toBe('');
    expect(fieldText(null, parsePath('id') as never)).toBe('');
  });

  it('show as columns of the records table, added and removed', async () => {
    const row = (offset: string, text: string): MessageRow => ({
      partition: 0, offset, key: 'k', key_kind: 'str', timestamp: 1765000000, kind: 'str', text, hex: null, class: null, type_id: null,
      fields_json: null, fields_pretty: null, size: text.length, truncated: false,
      kafka: { key_null: false, key_binary: false, key_size: 1, value_null: false, headers: [] },
    });
    answers.clusterInfo = ok<ClusterInfo>({ name: 'c', bootstrap: 'b:1', cluster_id: 'x', read_only: false, topics: [{ name: 'orders', messages: '2', partitions: [{ partition: 0, low: '0', high: '2', messages: '2' }] }] });
    answers.readPage = ok<Page>({ partition: 0, rows: [row('0', '{"country":"FR"}'), row('1', 'plain')].map((r) => ({ row: 'message' as const, ...r })), next: '2', end: '2', incarnation: null });
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    await fireEvent.input(r.getByTestId('cluster-column-path'), { target: { value: 'value..x' } });
    await fireEvent.click(r.getByTestId('cluster-column-add'));
    expect(r.getByTestId('cluster-column-problem').textContent).toMatch(/is not a field path/);
    await fireEvent.input(r.getByTestId('cluster-column-path'), { target: { value: 'value.country' } });
    await fireEvent.click(r.getByTestId('cluster-column-add'));
    expect(r.getByTestId('cluster-column').textContent).toContain('value.country');
    expect(r.getAllByTestId('cluster-record-field').map((c) => c.textContent)).toEqual(['FR', '']);
    await fireEvent.click(r.getByLabelText('Remove the column value.country'));
    expect(r.queryByTestId('cluster-column')).toBeNull();
  });
});
