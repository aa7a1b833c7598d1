import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterDemoMember, ClusterInfo } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';
import { clusterDemo, memberWords } from './clusterDemo.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));
beforeEach(() => {
  resetBackend();
  clusterView.topic = null;
  clusterView.info = null;
  clusterDemo.members = [];
  clusterDemo.topic = '';
  clusterDemo.error = null;
});
afterEach(() => cleanup());

const member = (id: number, partitions: number[], more: Partial<ClusterDemoMember> = {}): ClusterDemoMember => ({
  id, client_id: `twainmq-demo-${id}`, group: 'twainmq-demo', topic: 'orders', partitions, consumed: '40', joined: true, left: false, error: null, ...more,
});
const info = (readOnly: boolean): ClusterInfo => ({ name: 'c', bootstrap: 'b:1', cluster_id: 'x', read_only: readOnly, topics: [{ name: 'orders', messages: '9', partitions: [0, 1, 2].map((p) => ({ partition: p, low: '0', high: '3', messages: '3' })) }] });

describe('the balancing demo on a cluster group', () => {
  it('says what each member holds', () => {
    expect(memberWords(member(1, [0, 2]))).toBe('holds partitions 0, 2');
    expect(memberWords(member(1, [1]))).toBe('holds partition 1');
    expect(memberWords(member(1, [], { joined: false }))).toBe('joining…');
    expect(memberWords(member(1, []))).toBe('holds no partition (more members than partitions)');
    expect(memberWords(member(1, [], { left: true, error: 'broker gone' }))).toBe('stopped: broker gone');
  });

  it('adds members and stops them, the group handing partitions out', async () => {
    answers.clusterInfo = ok(info(false));
    answers.clusterGroups = ok([]);
    let members: ClusterDemoMember[] = [];
    answers.clusterDemoMembers = () => ok(members);
    answers.clusterDemoStart = (group: string, topic: string) => {
      members = members.length === 0 ? [member(1, [0, 1, 2], { group, topic })] : [member(1, [0, 1]), member(2, [2])];
      return ok(members.length);
    };
    answers.clusterDemoStop = (id: number) => {
      members = members.filter((m) => m.id !== id).map((m) => ({ ...m, partitions: [0, 1, 2] }));
      return ok(null);
    };
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-tab-groups'));
    await fireEvent.click(r.getByTestId('cluster-demo-open'));
    await settle();
    await fireEvent.click(r.getByTestId('cluster-demo-add'));
    await settle();
    expect(r.getAllByTestId('cluster-demo-holds').map((x) => x.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['012 holds partitions 0, 1, 2']);
    await fireEvent.click(r.getByTestId('cluster-demo-add'));
    await settle();
    expect(r.getAllByTestId('cluster-demo-member').length).toBe(2);
    await fireEvent.click(r.getAllByTestId('cluster-demo-stop')[1]);
    await settle();
    expect(r.getAllByTestId('cluster-demo-holds').map((x) => x.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['012 holds partitions 0, 1, 2']);
    expect(calls.filter((c) => c[0] === 'clusterDemoStart').map((c) => c.slice(1))).toEqual([['twainmq-demo', 'orders'], ['twainmq-demo', 'orders']]);
    expect(calls.find((c) => c[0] === 'clusterDemoStop')?.[1]).toBe(2);
  });

  it('is not offered read-only', async () => {
    answers.clusterInfo = ok(info(true));
    answers.clusterGroups = ok([]);
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-tab-groups'));
    expect(r.queryByTestId('cluster-demo-open')).toBeNull();
  });
});
