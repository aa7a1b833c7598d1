import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterGroupDetail, ClusterGroupPartition, ClusterGroupSummary } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import { overviewRows, prefixOf, sidebarRows, writeRates } from './topicList';
import type { ClusterInfo, ClusterTopic } from '../backend';
import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));
const topic = (name: string, messages = '1', partitions = 1): ClusterTopic => ({
  name,
  messages,
  partitions: Array.from({ length: partitions }, (_, p) => ({ partition: p, low: '0', high: p === 0 ? messages : '0', messages: p === 0 ? messages : '0' })),
});

beforeEach(() => {
  resetBackend();
  clusterView.topic = null;
  clusterView.filter = '';
  clusterView.opened = new Set();
});
afterEach(() => cleanup());

describe("a cluster's topic list", () => {
  const topics = [topic('payments.refunds', '3'), topic('payments.captures', '9007199254740993'), topic('audit'), topic('orders-v2', '0'), topic('orders-v1', '5'), topic('solo.only')];

  it('names a prefix up to the first . - or _', () => {
    expect(['a.b.c', 'a-b', 'a_b', 'plain', '.hidden'].map(prefixOf)).toEqual(['a', 'a', 'a', null, null]);
  });

  it('folds topics that share a prefix, sums their messages exactly, and opens a prefix or every one while filtering', () => {
    const rows = sidebarRows(topics, '', true, new Set());
    expect(rows.map((r) => (r.kind === 'prefix' ? `[${r.prefix} ${r.topics} ${r.messages}]` : r.topic.name))).toEqual([
      'audit',
      '[orders 2 5]',
      '[payments 2 9007199254740996]',
      'solo.only',
    ]);
    const opened = sidebarRows(topics, '', true, new Set(['payments']));
    expect(opened.filter((r) => r.kind === 'topic' && r.nested).map((r) => (r.kind === 'topic' ? r.topic.name : ''))).toEqual(['payments.captures', 'payments.refunds']);
    const filtered = sidebarRows(topics, 'REF', true, new Set());
    // A lone match is not folded.
    expect(filtered.map((r) => (r.kind === 'topic' ? r.topic.name : r.prefix))).toEqual(['payments.refunds']);
    expect(sidebarRows(topics, '', false, new Set()).length).toBe(6);
  });

  it('sorts the overview exactly, hides the empty ones on request', () => {
    const by = (o: Parameters<typeof overviewRows>[1], hide = false) => overviewRows(topics, o, '', hide).map((t) => t.name);
    expect(by({ by: 'messages', desc: true })[0]).toBe('payments.captures');
    expect(by({ by: 'messages', desc: false }, true)).not.toContain('orders-v2');
    expect(by({ by: 'name', desc: false })).toEqual(['audit', 'orders-v1', 'orders-v2', 'payments.captures', 'payments.refunds', 'solo.only']);
  });

  it("says each topic's records written a second between two readings, and sorts by it", () => {
    const at = (ms: number, w: [string, bigint][]) => ({ at: ms, written: new Map(w) });
    const rates = writeRates(at(0, [['a', 100n], ['b', 9007199254740993n], ['gone', 5n], ['again', 50n]]), at(10_000, [['a', 150n], ['b', 9007199254741093n], ['again', 3n], ['new', 7n]]));
    expect(Object.fromEntries(rates)).toEqual({ a: 5, b: 10 });
    expect(writeRates(null, at(1, [['a', 1n]])).size).toBe(0);
    expect(writeRates(at(5, []), at(5, [['a', 1n]])).size).toBe(0);
    const names = overviewRows(topics, { by: 'rate', desc: true }, '', false, new Map([['audit', 3], ['solo.only', 0.5]])).map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(['audit', 'solo.only']);
  });
});

describe("the cluster window's topics", () => {
  it('shows the overview while no topic is picked, and folds 300 topics by prefix until asked otherwise', async () => {
    const many = Array.from({ length: 300 }, (_, i) => topic(`team${i % 3}.events.${i}`, String(i)));
    answers.clusterInfo = ok({ name: 'c', bootstrap: 'b:1', cluster_id: 'x', read_only: false, topics: many } satisfies ClusterInfo);
    const r = render(ClusterApp);
    await settle();
    expect(r.getByTestId('cluster-overview').textContent).toMatch(/300 topics/);
    expect(r.getAllByTestId('cluster-overview-messages')[0].textContent).toBe('299');
    expect(r.getByTestId('cluster-prefix-team0').textContent).toMatch(/100 topics/);
    await fireEvent.click(r.getByTestId('cluster-prefix-team1'));
    expect(r.getByTestId('cluster-topic-team1.events.1')).toBeTruthy();
    await fireEvent.click(r.getByTestId('cluster-tree'));
    expect(r.queryByTestId('cluster-prefix-team0')).toBeNull();
  });
});
