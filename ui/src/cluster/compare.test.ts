import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterInfo, MessageRow, Page } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, ok, resetBackend } from './testBackend';

import { compareRecords, differences } from './compare';
import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));
beforeEach(() => {
  resetBackend();
  clusterView.topic = null;
  clusterView.info = null;
  clusterView.selected = null;
  clusterView.other = null;
});
afterEach(() => cleanup());

const row = (offset: string, extra: Partial<MessageRow> = {}, headers: [string, string | null][] = [['trace', 't1']]): MessageRow => ({
  partition: 0,
  offset,
  key: 'order-7',
  key_kind: 'str',
  timestamp: 1765000000,
  kind: 'str',
  text: '{"n":1}',
  hex: null,
  class: null,
  type_id: null,
  fields_json: null,
  fields_pretty: null,
  size: 7,
  truncated: false,
  kafka: { key_null: false, key_binary: false, key_size: 7, value_null: false, headers: headers.map(([name, text]) => ({ name, text, hex: null, null: text === null })) },
  ...extra,
});

describe('two records side by side', () => {
  it('say what differs, headers by name, and never their place', () => {
    const same = compareRecords(row('1'), row('9', { partition: 2 }), 'utc');
    expect(same.every((r) => r.same)).toBe(true);
    expect(differences(same)).toBe('nothing but their place: the same time, key, value and headers');
    const rows = compareRecords(row('1'), row('2', { text: '{"n":2}' }, [['trace', 't2'], ['retry', '1'], ['retry', null]]), 'utc');
    expect(rows.filter((r) => !r.same).map((r) => [r.field, r.a, r.b])).toEqual([
      ['Value', '{"n":1}', '{"n":2}'],
      ['Header trace', 't1', 't2'],
      ['Header retry', '(none)', '1 · (null)'],
    ]);
    expect(differences(rows)).toBe('the value and 2 headers');
  });

  it('in the window: ctrl-click a second record, then Done', async () => {
    answers.clusterInfo = ok<ClusterInfo>({ name: 'local', bootstrap: 'b:9092', cluster_id: 'c1', read_only: false, topics: [{ name: 'orders', messages: '2', partitions: [{ partition: 0, low: '0', high: '2', messages: '2' }] }] });
    answers.readPage = ok<Page>({ partition: 0, rows: [row('0'), row('1', { key: 'order-8' })].map((r) => ({ row: 'message' as const, ...r })), next: '2', end: '2', incarnation: null });
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    const [first, second] = r.getAllByTestId('cluster-record');
    await fireEvent.click(first);
    await fireEvent.click(second, { ctrlKey: true });
    expect(r.getByTestId('cluster-compare').textContent).toContain('They differ in the key.');
    expect(r.getAllByTestId('cluster-compare-row').filter((x) => x.dataset.same === 'false').map((x) => x.querySelector('th')!.textContent)).toEqual(['Key']);
    await fireEvent.click(r.getByTestId('cluster-compare-close'));
    expect(r.queryByTestId('cluster-compare')).toBeNull();
    expect(r.getByTestId('cluster-detail')).toBeTruthy();
  });
});
