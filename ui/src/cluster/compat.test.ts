import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterInfo, CompatCheck } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  resetBackend();
  clusterView.topic = null;
  clusterView.info = null;
});
afterEach(() => cleanup());

const info = (readOnly: boolean): ClusterInfo => ({ name: 'local', bootstrap: 'b:9092', cluster_id: 'c1', read_only: readOnly, topics: [] });
const check = (name: string, outcome: CompatCheck['outcome'], seen: string): CompatCheck => ({ name, apis: ['Fetch'], outcome, seen, used_by: 'reading a page', millis: '1234' });

describe('the compatibility tab', () => {
  it('runs the checks and says how each came out', async () => {
    answers.clusterInfo = ok(info(false));
    answers.clusterCompatibility = (write: boolean) =>
      ok([
        check('Topics are listed', 'right', '3 topics'),
        check('Groups are described', 'wrong', 'members come without client id or host'),
        check('A batch is counted record by record', write ? 'right' : 'skipped', write ? '5 records: the end is 5' : 'writing checks not asked for'),
      ]);
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-tab-compat'));
    await fireEvent.click(r.getByTestId('cluster-compat-read'));
    await settle();
    expect(r.getByTestId('cluster-compat-summary').textContent).toBe('1 right, 1 wrong, 1 not run, of 3 checks (the writing ones only when asked).');
    const rows = r.getAllByTestId('cluster-compat-check');
    expect(rows.map((x) => x.dataset.outcome)).toEqual(['right', 'wrong', 'skipped']);
    expect(rows[1].textContent).toContain('members come without client id or host');
    expect(rows[0].textContent).toContain('1,234 ms');
    await fireEvent.click(r.getByTestId('cluster-compat-write'));
    await settle();
    expect(r.getByTestId('cluster-compat-summary').textContent).toBe('2 right, 1 wrong, of 3 checks.');
    expect(calls.filter((c) => c[0] === 'clusterCompatibility').map((c) => c[1])).toEqual([false, true]);
  });

  it('offers no writing checks on a read-only connection', async () => {
    answers.clusterInfo = ok(info(true));
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-tab-compat'));
    expect(r.queryByTestId('cluster-compat-read')).not.toBeNull();
    expect(r.queryByTestId('cluster-compat-write')).toBeNull();
  });
});
