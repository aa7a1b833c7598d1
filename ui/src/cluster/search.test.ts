import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterGroupDetail, ClusterGroupPartition, ClusterGroupSummary } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import type { ClusterSearchEvent, MessageRow } from '../backend';
import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';
import { clusterSearch } from './clusterSearch.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));
function row(partition: number, offset: number): MessageRow {
  return { partition, offset: String(offset), key: `customer-${offset}`, key_kind: 'str', timestamp: 1765000000, kind: 'str', text: 'v', hex: null, class: null, type_id: null, fields_json: null, fields_pretty: null, size: 1, truncated: false, kafka: null } as MessageRow;
}

beforeEach(() => {
  resetBackend();
  clusterView.topic = null;
  clusterSearch.close();
  answers.clusterInfo = ok({ name: 'c', bootstrap: 'b:1', cluster_id: 'x', read_only: false, topics: [{ name: 'orders', messages: '300', partitions: [0, 1, 2].map((p) => ({ partition: p, low: '0', high: '100', messages: '100' })) }, { name: 'other', messages: '0', partitions: [] }] });
  answers.readPage = ok({ partition: 0, rows: [], next: '0', end: '100', incarnation: null });
});
afterEach(() => cleanup());

describe("a cluster topic's search", () => {
  it('sends the query, shows hits of every partition as they stream, and says how it ended', async () => {
    let emit: (e: ClusterSearchEvent) => void = () => {};
    answers.clusterSearch = (_topic: unknown, _q: unknown, on: (e: ClusterSearchEvent) => void) => {
      emit = on;
      return ok(null);
    };
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    await fireEvent.change(r.getByTestId('cluster-search-mode'), { target: { value: 'cel' } });
    await fireEvent.input(r.getByTestId('cluster-search-text'), { target: { value: 'value.country == "JP"' } });
    await fireEvent.click(r.getByTestId('cluster-search-go'));
    await settle();
    expect(calls.find(([n]) => n === 'clusterSearch')?.slice(1, 3)).toEqual(['orders', { mode: 'cel', place: 'all', text: 'value.country == "JP"' }]);
    expect(r.getByTestId('cluster-search-stop')).toBeTruthy();
    emit({ event: 'hits', rows: [row(2, 7), row(0, 3)] });
    emit({ event: 'progress', scanned: '150', total: '300', hits: '2' });
    await settle();
    expect(r.getByTestId('cluster-search-state').textContent).toMatch(/2 hits in 150 of 300 records · searching/);
    expect(r.getAllByTestId('cluster-record').map((x) => x.querySelector('td')?.textContent)).toEqual(['2 / 7', '0 / 3']);
    emit({ event: 'done', scanned: '300', total: '300', hits: '2', stopped: false, rows_cut: false });
    await settle();
    expect(r.getByTestId('cluster-search-state').textContent).toMatch(/2 hits in 300 of 300 records · every partition read/);
    await fireEvent.click(r.getByTestId('cluster-search-close'));
    expect(r.queryByTestId('cluster-search-state')).toBeNull();
  });

  it('says a query the backend refuses, and a search stopped', async () => {
    answers.clusterSearch = { status: 'error', error: { code: 'invalid_regex', message: 'not a regular expression: unclosed group' } };
    answers.clusterCancelSearch = ok(null);
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    await fireEvent.change(r.getByTestId('cluster-search-mode'), { target: { value: 'regex' } });
    await fireEvent.input(r.getByTestId('cluster-search-text'), { target: { value: '(' } });
    await fireEvent.click(r.getByTestId('cluster-search-go'));
    await settle();
    expect(r.getByTestId('cluster-search-state').textContent).toMatch(/unclosed group/);
    // Another topic: the results close.
    await fireEvent.click(r.getByTestId('cluster-topic-other'));
    await settle();
    expect(r.queryByTestId('cluster-search-state')).toBeNull();
  });
});
