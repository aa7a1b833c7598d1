import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterInfo, ClusterMirrorEvent, Page } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';
import { endText, resumedText } from './clusterMirror.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  resetBackend();
  clusterView.topic = null;
  clusterView.info = null;
});
afterEach(() => cleanup());

const info = (readOnly: boolean): ClusterInfo => ({
  name: 'local',
  bootstrap: 'b:9092',
  cluster_id: 'c1',
  read_only: readOnly,
  topics: [{ name: 'orders', messages: '30', partitions: [0, 1].map((p) => ({ partition: p, low: '0', high: '15', messages: '15' })) }],
});
const page: Page = { partition: 0, rows: [], next: '15', end: '15', incarnation: null };
const done = (more: Partial<Extract<ClusterMirrorEvent, { event: 'done' }>> = {}): Extract<ClusterMirrorEvent, { event: 'done' }> => ({
  event: 'done',
  mirrored: '6',
  stopped: false,
  seconds: 1.25,
  created: false,
  from: ['10', '10'],
  groups: [],
  retries: '0',
  ...more,
});

describe('a mirror says where it resumed and how it ended', () => {
  it('in words', () => {
    expect(resumedText(['0', '0'])).toBe('from the start of every partition');
    expect(resumedText(['10', '1200'])).toBe('going on from where the target is: partition 0 at 10, partition 1 at 1,200');
    expect(endText(done(), 'orders of the store')).toBe('Done: 6 records written to orders of the store in 1.3 s.');
    expect(endText(done({ stopped: true, created: true, groups: ['billing'], retries: '2', seconds: 75.4 }), 't')).toBe(
      'Stopped: 6 records written to t (made for it) in 75 s; the commits of 1 consumer group carried across (billing); the cluster failed 2 times and the mirror went on. Starting it again goes on from there: nothing is written twice.',
    );
  });
});

describe('the cluster window mirrors a topic', () => {
  it('into a store, live, and stops when asked', async () => {
    answers.clusterInfo = ok(info(false));
    answers.readPage = ok(page);
    let send: (e: ClusterMirrorEvent) => void = () => {};
    answers.clusterMirror = (_req: unknown, onEvent: (e: ClusterMirrorEvent) => void) => {
      send = onEvent;
      return ok(7);
    };
    answers.cancelTransfer = () => {
      send(done({ stopped: true, mirrored: '9' }));
      return ok(null);
    };
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    await fireEvent.click(r.getByTestId('cluster-mirror'));
    expect((r.getByTestId('cluster-mirror-start') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(r.getByTestId('cluster-mirror-store-input'), { target: { value: '/data/store' } });
    await fireEvent.click(r.getByTestId('cluster-mirror-follow'));
    await fireEvent.click(r.getByTestId('cluster-mirror-start'));
    await settle();
    send({ event: 'started', from: ['10', '12'], created: false });
    send({ event: 'progress', mirrored: '4', left: null });
    await settle();
    expect(r.getByTestId('cluster-mirror-resumed').textContent).toBe('Started going on from where the target is: partition 0 at 10, partition 1 at 12.');
    expect(r.getByTestId('cluster-mirror-count').textContent?.trim()).toBe('4 written · following');
    await fireEvent.click(r.getByTestId('cluster-mirror-stop'));
    await settle();
    expect(r.getByTestId('cluster-mirror-result').textContent).toMatch(/^Stopped: 9 records written to orders of the store/);
    expect(calls.find((c) => c[0] === 'clusterMirror')?.[1]).toEqual({
      way: 'cluster_to_store',
      store: '/data/store',
      store_topic: 'orders',
      cluster_topic: 'orders',
      follow: true,
      groups: false,
      key_type: 'any',
      large_messages: false,
      drop_headers: false,
    });
    expect(calls.find((c) => c[0] === 'cancelTransfer')?.[1]).toBe(7);
  });

  it('says a refusal, and is not offered read-only', async () => {
    answers.clusterInfo = ok(info(false));
    answers.readPage = ok(page);
    answers.clusterMirror = { status: 'error', error: { code: 'topic_not_found', message: 'the store has no topic "orders"' } };
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-mirror'));
    await fireEvent.click(r.getByTestId('cluster-mirror-to-cluster'));
    await fireEvent.input(r.getByTestId('cluster-mirror-store-input'), { target: { value: '/data/store' } });
    await fireEvent.click(r.getByTestId('cluster-mirror-start'));
    await settle();
    expect(r.getByTestId('cluster-mirror-error').textContent).toBe('the store has no topic "orders"');
    cleanup();
    answers.clusterInfo = ok(info(true));
    const ro = render(ClusterApp);
    await settle();
    expect(ro.queryByTestId('cluster-mirror')).toBeNull();
  });
});
