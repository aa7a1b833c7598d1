import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterGroupDetail, ClusterGroupPartition, ClusterGroupSummary } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import { assignmentText, groupRows, needsLook, nextSort, partitionRows, ranges, standingWords } from './groups';
import ClusterApp from './ClusterApp.svelte';
import { clusterGroups } from './clusterGroups.svelte';
import { LagHistory } from './lagTrend';

const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  resetBackend();
  clusterGroups.back();
  clusterGroups.groups = null;
  clusterGroups.filter = '';
  clusterGroups.showLeases = false;
  clusterGroups.order = { by: 'lag', desc: true };
  clusterGroups.history = new LagHistory();
});
afterEach(() => cleanup());

function summary(id: string, lag: string, more: Partial<ClusterGroupSummary> = {}): ClusterGroupSummary {
  return { id, state: 'Empty', protocol_type: 'consumer', members: 0, topics: ['orders'], lag, uncommitted: 0, error: null, mirror_lease: false, ...more };
}

function part(partition: number, committed: string | null, end: string | null, more: Partial<ClusterGroupPartition> = {}): ClusterGroupPartition {
  const lag = committed !== null && end !== null ? (BigInt(end) > BigInt(committed) ? (BigInt(end) - BigInt(committed)).toString() : '0') : null;
  return { topic: 'orders', partition, committed, low: '0', end, lag, standing: committed === null ? 'none' : 'within', member: null, metadata: null, ...more };
}

describe('the groups overview rows', () => {
  const groups = [
    summary('billing', '16', { topics: ['orders', 'refunds'] }),
    // Beyond 2^53: compared exactly, never through a lossy number.
    summary('huge', '9007199254740993'),
    summary('huge-minus-one', '9007199254740992'),
    summary('twainmq-mirror.orders', '0', { mirror_lease: true, members: 1, state: 'Stable' }),
    summary('audit', '0', { topics: ['payments'] }),
  ];

  it('sort by lag exactly, largest first, ties by id; the mirror leases hidden unless asked', () => {
    const rows = groupRows(groups, { by: 'lag', desc: true }, '', false);
    expect(rows.map((g) => g.id)).toEqual(['huge', 'huge-minus-one', 'billing', 'audit']);
    expect(groupRows(groups, { by: 'lag', desc: true }, '', true).map((g) => g.id)).toContain('twainmq-mirror.orders');
  });

  it('filter by the group or one of its topics, any case', () => {
    expect(groupRows(groups, { by: 'id', desc: false }, 'PAYMENTS', false).map((g) => g.id)).toEqual(['audit']);
    expect(groupRows(groups, { by: 'id', desc: false }, 'refund', false).map((g) => g.id)).toEqual(['billing']);
    expect(groupRows(groups, { by: 'id', desc: false }, 'bill', false).map((g) => g.id)).toEqual(['billing']);
  });

  it('a header click sorts figures largest first and names A-Z, and again the other way', () => {
    expect(nextSort({ by: 'lag', desc: true }, 'id', ['id', 'state', 'topics'])).toEqual({ by: 'id', desc: false });
    expect(nextSort({ by: 'id', desc: false }, 'members', ['id', 'state', 'topics'])).toEqual({ by: 'members', desc: true });
    expect(nextSort({ by: 'members', desc: true }, 'members', ['id', 'state', 'topics'])).toEqual({ by: 'members', desc: false });
  });
});

describe("a group's partitions", () => {
  const parts = [part(0, '12', '12'), part(1, '4', '10'), part(2, null, '10'), part(3, '50', '12', { standing: 'past_end', lag: '0' }), part(4, '1', '20', { standing: 'behind_start', low: '5' })];

  it('sort by lag (unknown lag least) and filter to those that need a look', () => {
    expect(partitionRows(parts, { by: 'lag', desc: true }, false).map((p) => p.partition)).toEqual([4, 1, 0, 3, 2]);
    expect(partitionRows(parts, { by: 'lag', desc: true }, true).map((p) => p.partition)).toEqual([4, 1, 3]);
    expect(needsLook(part(2, null, '10'))).toBe(false);
  });

  it('say what a commit outside the partition means', () => {
    expect(standingWords('past_end', parts[3])).toMatch(/past the end \(12\).*up to 50 will be skipped/);
    expect(standingWords('behind_start', parts[4])).toMatch(/below the first offset still there \(5\).*deleted/);
    expect(standingWords('none', parts[2])).toMatch(/never committed/);
    expect(standingWords('within', parts[0])).toBe('');
  });

  it('say a member’s assignment in ranges, and what the broker did not tell', () => {
    expect(ranges([5, 0, 1, 2, 7, 8])).toBe('0-2, 5, 7-8');
    expect(assignmentText([{ topic: 'orders', partitions: [0, 1, 2] }, { topic: 'clicks', partitions: [4] }])).toBe('orders 0-2 · clicks 4');
    expect(assignmentText(null)).toBe('not told by the broker');
    expect(assignmentText([])).toBe('nothing');
  });
});

describe('the cluster window’s groups tab', () => {
  it('lists the groups, opens one with its members and partitions, and flags a commit past the end', async () => {
    answers.clusterInfo = ok({ name: 'local', bootstrap: 'b:9092', cluster_id: 'c1', topics: [] });
    answers.clusterGroups = ok([summary('billing', '6', { state: 'Stable', members: 1, uncommitted: 1 }), summary('twainmq-mirror.orders', '0', { mirror_lease: true })]);
    const detail: ClusterGroupDetail = {
      id: 'billing',
      state: 'Stable',
      protocol_type: 'consumer',
      assignor: 'range',
      members: [{ member_id: 'm-1', client_id: 'worker', host: '10.0.0.7', instance_id: null, assignment: [{ topic: 'orders', partitions: [0, 1, 2] }] }],
      partitions: [part(0, '12', '12', { member: 'm-1' }), part(1, '4', '10', { member: 'm-1' }), part(2, '50', '12', { standing: 'past_end', lag: '0', member: 'm-1' })],
      lag: '6',
      mirror_lease: false,
    };
    answers.clusterGroup = ok(detail);
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-tab-groups'));
    await settle();
    await settle();
    const rows = r.getAllByTestId('cluster-group-row');
    expect(rows).toHaveLength(1); // the mirror's lease group hidden
    expect(rows[0].textContent).toMatch(/billing/);
    expect(r.getByTestId('cluster-group-row-lag').textContent).toMatch(/6 \+1 never committed/);
    await fireEvent.click(r.getByTestId('cluster-groups-leases'));
    expect(r.getAllByTestId('cluster-group-row')).toHaveLength(2);

    await fireEvent.click(r.getByTestId('cluster-group-billing'));
    await settle();
    expect(calls.some(([n, id]) => n === 'clusterGroup' && id === 'billing')).toBe(true);
    expect(r.getByTestId('cluster-group-state').textContent).toBe('Stable');
    expect(r.getByTestId('cluster-group-members').textContent).toMatch(/worker.*10\.0\.0\.7.*orders 0-2/s);
    const notes = r.getAllByTestId('cluster-group-partition-note').map((n) => n.textContent);
    expect(notes.some((n) => /past the end \(12\)/.test(n ?? ''))).toBe(true);
    await fireEvent.click(r.getByTestId('cluster-group-lagging'));
    expect(r.getAllByTestId('cluster-group-partition').map((x) => x.textContent)).toEqual([expect.stringMatching(/orders \/ 1/), expect.stringMatching(/orders \/ 2/)]);
    await fireEvent.click(r.getByTestId('cluster-groups-back'));
    expect(r.getAllByTestId('cluster-group-row')).toHaveLength(2);
  });

  it('says, from the lag read at each refresh, when a group clears or that it falls behind', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      answers.clusterInfo = ok({ name: 'local', bootstrap: 'b:9092', cluster_id: 'c1', read_only: false, topics: [] });
      let lags = ['600', '900'];
      answers.clusterGroups = () => ok([summary('billing', lags[0]), summary('audit', lags[1])]);
      vi.setSystemTime(1_765_000_000_000);
      await clusterGroups.load();
      lags = ['300', '1100'];
      vi.setSystemTime(1_765_000_030_000);
      await clusterGroups.load();
      const r = render(ClusterApp);
      await settle();
      await fireEvent.click(r.getByTestId('cluster-tab-groups'));
      await settle();
      const trends = Object.fromEntries(r.getAllByTestId('cluster-group-row').map((row) => [row.querySelector('button')!.textContent, row.querySelector('[data-testid="cluster-group-row-trend"]')!.textContent]));
      expect(trends.billing).toBe('clears in ~30 s (down 10/s over 30 s)');
      expect(trends.audit).toBe('falling behind: up 6.7/s over 30 s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says a failed read in words and keeps the window usable', async () => {
    answers.clusterInfo = ok({ name: 'local', bootstrap: 'b:9092', cluster_id: 'c1', topics: [] });
    answers.clusterGroups = { status: 'error', error: { code: 'kafka', message: 'Kafka at b:9092: list consumer groups failed: GROUP_AUTHORIZATION_FAILED' } };
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-tab-groups'));
    await settle();
    expect(r.getByTestId('cluster-groups-error').textContent).toMatch(/GROUP_AUTHORIZATION_FAILED/);
    await fireEvent.click(r.getByTestId('cluster-tab-topics'));
    expect(r.getByTestId('cluster-topics')).toBeTruthy();
  });
});

import { resetTarget } from './groupAdmin.svelte';

describe('a cluster group’s reset and delete', () => {
  it('reads the target typed, or says what is wrong with it', () => {
    expect(resetTarget('earliest', 'ignored', 'utc')).toEqual({ mode: 'earliest' });
    expect(resetTarget('time', '2026-12-07 10:00', 'utc')).toEqual({ mode: 'time', unix_ms: Date.UTC(2026, 11, 7, 10) });
    expect(resetTarget('time', 'soon', 'utc')).toMatch(/Give the time/);
    expect(resetTarget('offset', '18446744073709551615', 'utc')).toEqual({ mode: 'offset', offset: '18446744073709551615' });
    expect(resetTarget('offset', '-1', 'utc')).toMatch(/whole number of 0 or more/);
    expect(resetTarget('shift', '+250', 'utc')).toEqual({ mode: 'shift', by: '250' });
    expect(resetTarget('shift', '-100', 'utc')).toEqual({ mode: 'shift', by: '-100' });
    expect(resetTarget('shift', '-', 'utc')).toMatch(/how many records/);
  });

  const detail: ClusterGroupDetail = {
    id: 'billing',
    state: 'Empty',
    protocol_type: 'consumer',
    assignor: null,
    members: [],
    partitions: [part(0, '12', '12'), part(1, '4', '10')],
    lag: '6',
    mirror_lease: false,
  };
  const plan = (members: number) => ({
    group: 'billing',
    members,
    reread: '16',
    skipped: '0',
    rows: [
      { topic: 'orders', partition: 0, current: '12', new: '0', low: '0', end: '12', lag_before: '0', lag_after: '12' },
      { topic: 'orders', partition: 1, current: '4', new: '0', low: '0', end: '10', lag_before: '6', lag_after: '10' },
    ],
  });

  async function openGroup() {
    answers.clusterInfo = ok({ name: 'local', bootstrap: 'b:9092', cluster_id: 'c1', read_only: false, topics: [{ name: 'orders', messages: '22', partitions: [] }] });
    answers.clusterGroups = ok([summary('billing', '6')]);
    answers.clusterGroup = ok(detail);
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-tab-groups'));
    await settle();
    await fireEvent.click(r.getByTestId('cluster-group-billing'));
    await settle();
    return r;
  }

  it('previews a reset, applies exactly the plan shown, and a change of the form asks for a new preview', async () => {
    answers.clusterResetPlan = ok(plan(0));
    answers.clusterResetApply = ok({ ...detail, lag: '22' });
    const r = await openGroup();
    await fireEvent.click(r.getByTestId('cluster-group-reset'));
    await settle();
    expect((r.getByTestId('reset-apply') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(r.getByTestId('reset-preview'));
    await settle();
    expect(calls.find(([n]) => n === 'clusterResetPlan')?.slice(1)).toEqual(['billing', { topics: ['orders'], to: { mode: 'earliest' } }]);
    expect(r.getByTestId('reset-summary').textContent).toMatch(/Reads 16 records again/);
    expect(r.getAllByTestId('reset-row').map((x) => x.textContent)).toEqual([expect.stringMatching(/12\s*0\s*−12\s*12/), expect.stringMatching(/4\s*0\s*−4\s*10/)]);
    // Another mode: the plan shown is stale, Apply waits for a new preview.
    await fireEvent.click(r.getByTestId('reset-mode-latest'));
    expect((r.getByTestId('reset-apply') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(r.getByTestId('reset-mode-earliest'));
    await fireEvent.click(r.getByTestId('reset-preview'));
    await settle();
    answers.clusterGroup = ok({ ...detail, lag: '22' }); // the cluster after the reset
    await fireEvent.click(r.getByTestId('reset-apply'));
    await settle();
    expect(calls.find(([n]) => n === 'clusterResetApply')?.slice(1)).toEqual(['billing', plan(0).rows]);
    expect(r.queryByTestId('reset-dialog')).toBeNull();
    expect(r.getByTestId('cluster-group-lag').textContent).toBe('22');
  });

  it('will not apply while the group has members, and says why', async () => {
    answers.clusterResetPlan = ok(plan(2));
    const r = await openGroup();
    await fireEvent.click(r.getByTestId('cluster-group-reset'));
    await settle();
    await fireEvent.click(r.getByTestId('reset-preview'));
    await settle();
    expect(r.getByTestId('reset-members').textContent).toMatch(/2 members now/);
    expect((r.getByTestId('reset-apply') as HTMLButtonElement).disabled).toBe(true);
  });

  it('deletes the group once its name is typed, and goes back to the list', async () => {
    answers.clusterDeleteGroup = ok(null);
    const r = await openGroup();
    await fireEvent.click(r.getByTestId('cluster-group-delete'));
    await settle();
    const submit = r.getByTestId('group-delete-submit') as HTMLButtonElement;
    await fireEvent.input(r.getByTestId('group-delete-confirm'), { target: { value: 'billin' } });
    expect(submit.disabled).toBe(true);
    await fireEvent.input(r.getByTestId('group-delete-confirm'), { target: { value: 'billing' } });
    answers.clusterGroups = ok([]);
    await fireEvent.click(submit);
    await settle();
    await settle();
    expect(calls.find(([n]) => n === 'clusterDeleteGroup')?.slice(1)).toEqual(['billing', 'billing']);
    expect(r.queryByTestId('group-delete-dialog')).toBeNull();
    expect(r.getByTestId('cluster-groups-none').textContent).toMatch(/no consumer groups/);
  });
});
