import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClusterInfo, MessageRow, Page } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import { ClusterView, FOLLOW_KEEP, FOLLOW_MS } from './clusterView.svelte';

function row(offset: number): MessageRow {
  return { partition: 0, offset: String(offset), key: `k${offset}`, key_kind: 'str', timestamp: 1765000000 + offset, kind: 'str', text: `v${offset}`, hex: null, class: null, type_id: null, fields_json: null, fields_pretty: null, size: 2, truncated: false, kafka: null } as MessageRow;
}

/** A partition whose end the test moves: a page is the offsets [from, min(from + limit, end)). */
let end = 0;
function pageFrom(from: string, limit: number): Page {
  const start = Math.min(from.length > 15 ? end : Number(from), end);
  const stop = Math.min(start + limit, end);
  return { partition: 0, rows: Array.from({ length: stop - start }, (_, i) => ({ row: 'message' as const, ...row(start + i) })), next: String(stop), end: String(end), incarnation: null };
}

beforeEach(() => {
  resetBackend();
  answers.readPage = (_t: unknown, _p: unknown, from: string, limit: number) => ok(pageFrom(from, limit));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => vi.useRealTimers());

function view(): ClusterView {
  const v = new ClusterView();
  v.info = { name: 'c', bootstrap: 'b:1', cluster_id: 'x', read_only: false, topics: [{ name: 't', messages: '0', partitions: [{ partition: 0, low: '0', high: '0', messages: '0' }] }] } as ClusterInfo;
  v.topic = 't';
  return v;
}

describe('following a cluster partition', () => {
  it('shows the last page, then adds what arrives each tick, in order, none twice', async () => {
    end = 250;
    const v = view();
    await v.follow();
    expect(v.following).toBe(true);
    expect(v.rows.map((r) => r.offset)).toEqual(Array.from({ length: 100 }, (_, i) => String(150 + i)));
    end = 253;
    await vi.advanceTimersByTimeAsync(FOLLOW_MS);
    expect(v.rows.slice(-3).map((r) => r.offset)).toEqual(['250', '251', '252']);
    expect(v.arrived).toBe(3);
    await vi.advanceTimersByTimeAsync(FOLLOW_MS);
    expect(v.rows.length).toBe(103);
    // The partition's row and its topic's count follow the end too: never a stale figure.
    expect(v.info?.topics[0].partitions[0].high).toBe('253');
    expect(v.info?.topics[0].messages).toBe('253');
    v.stopFollowing();
    const asked = calls.length;
    end = 260;
    await vi.advanceTimersByTimeAsync(FOLLOW_MS * 3);
    expect(calls.length).toBe(asked);
    expect(v.following).toBe(false);
  });

  it('keeps the newest rows only, and a failed read is said and tried again', async () => {
    end = 10;
    const v = view();
    await v.follow();
    end = 10 + FOLLOW_KEEP + 20;
    const real = answers.readPage;
    answers.readPage = { status: 'error', error: { code: 'kafka', message: 'Kafka at b:1: read t/0 failed: connection reset' } };
    await vi.advanceTimersByTimeAsync(FOLLOW_MS);
    expect(v.pageError).toMatch(/connection reset \(trying again\)/);
    answers.readPage = real;
    await vi.advanceTimersByTimeAsync(FOLLOW_MS);
    await vi.advanceTimersByTimeAsync(FOLLOW_MS);
    await vi.advanceTimersByTimeAsync(FOLLOW_MS);
    expect(v.pageError).toBeNull();
    expect(v.rows.length).toBe(FOLLOW_KEEP);
    expect(v.rows[v.rows.length - 1].offset).toBe(String(end - 1));
    expect(v.from).toBe(v.rows[0].offset);
    v.stopFollowing();
  });

  it('stops when another partition or topic is picked', async () => {
    end = 5;
    const v = view();
    await v.follow();
    await v.pickPartition(0);
    expect(v.following).toBe(false);
  });
});
