import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterImportCheck, ClusterInfo, Page, TransferEvent } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import { importPlanText, keepPartitionsBlocked, keepPartitionsProblem } from './importPlan';
import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';

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
  topics: [
    { name: 'orders', messages: '30', partitions: [0, 1, 2].map((p) => ({ partition: p, low: '0', high: '10', messages: '10' })) },
    { name: 'narrow', messages: '0', partitions: [{ partition: 0, low: '0', high: '0', messages: '0' }] },
  ],
});
const page: Page = { partition: 0, rows: [], next: '10', end: '10', incarnation: null };
const check = (more: Partial<ClusterImportCheck> = {}): ClusterImportCheck => ({
  records: '30',
  with_partition: '30',
  highest_partition: 2,
  partitions: 3,
  bad: '0',
  first_bad: null,
  ...more,
});

describe('an import says what it will do before it writes', () => {
  it('keeps partitions only when the topic has them all', () => {
    expect(keepPartitionsProblem(check())).toBeNull();
    expect(keepPartitionsBlocked(check({ partitions: 2 }))).toBe(true);
    expect(keepPartitionsProblem(check({ partitions: 2 }))).toBe('the file names partition 2, and the topic has 2 partitions (0 to 1)');
    expect(keepPartitionsBlocked(check({ with_partition: '0', highest_partition: null }))).toBe(true);
    expect(keepPartitionsProblem(check({ with_partition: '25' }))).toBe('5 of its lines name no partition: those go by key');
    expect(keepPartitionsBlocked(check({ with_partition: '25' }))).toBe(false);
  });

  it('names a bad line, and a resume passes over what was written', () => {
    expect(importPlanText(check(), 'orders', null)).toBe('Importing writes 30 records to orders.');
    const bad = check({ bad: '1', records: '29', first_bad: { line: '12', problem: 'the value’s hex is not hex' } });
    expect(importPlanText(bad, 'orders', null)).toMatch(/^Line 12 is bad \(the value’s hex is not hex\): importing writes the records before it to orders and stops there\. Fix the line/);
    expect(importPlanText(check(), 'orders', { line: '12', landed_after: ['14'] })).toBe(
      'Importing writes the rest of the file to orders; the lines before line 12 and 1 line after it are in the topic already (the import that stopped wrote them) and are passed over: nothing is written twice.',
    );
  });
});

describe('the cluster window exports and imports', () => {
  async function open(readOnly = false) {
    answers.clusterInfo = ok(info(readOnly));
    answers.readPage = ok(page);
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    return r;
  }

  it('exports a topic, and asks before replacing a file that is there', async () => {
    let first = true;
    answers.clusterExport = (request: { overwrite: boolean }, onEvent: (e: TransferEvent) => void) => {
      if (first && !request.overwrite) {
        first = false;
        onEvent({ event: 'failed', error: { code: 'target_exists', message: '/tmp/orders.jsonl is already there' }, written: null, stopped: null });
      } else {
        onEvent({ event: 'progress', done: '10', total: '30' });
        onEvent({ event: 'done', done: { messages: '30', cancelled: false, target: '/tmp/orders.jsonl', import: null } });
      }
      return ok(1);
    };
    const r = await open();
    await fireEvent.click(r.getByTestId('cluster-export'));
    expect(r.getByTestId('cluster-export-dialog').textContent).toContain('Every partition of orders (30 records)');
    expect((r.getByTestId('cluster-export-submit') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(r.getByTestId('cluster-export-path-input'), { target: { value: '/tmp/orders.jsonl' } });
    await fireEvent.click(r.getByTestId('cluster-export-partition'));
    await fireEvent.click(r.getByTestId('cluster-export-submit'));
    await settle();
    expect(r.getByTestId('cluster-export-exists').textContent).toContain('orders.jsonl is already there');
    await fireEvent.click(r.getByTestId('cluster-export-replace'));
    await settle();
    expect(r.getByTestId('cluster-export-result').textContent).toContain('Exported 30 records to /tmp/orders.jsonl');
    const sent = calls.filter((c) => c[0] === 'clusterExport').map((c) => c[1]);
    expect(sent).toEqual([
      { topic: 'orders', partitions: [0], path: '/tmp/orders.jsonl', overwrite: false },
      { topic: 'orders', partitions: [0], path: '/tmp/orders.jsonl', overwrite: true },
    ]);
  });

  it('checks the file, imports it, and after a stop goes on from where it stopped', async () => {
    answers.clusterImportCheck = ok(check());
    let run = 0;
    answers.clusterImport = (_req: unknown, onEvent: (e: TransferEvent) => void) => {
      run++;
      if (run === 1) {
        onEvent({
          event: 'failed',
          error: { code: 'kafka', message: 'Kafka at b:9092: write records to orders failed: timed out' },
          written: '11',
          stopped: { line: '12', landed_after: ['14'], partitions: ['5', '3', '3'] },
        });
      } else {
        onEvent({
          event: 'done',
          done: {
            messages: '18',
            cancelled: false,
            target: 'orders',
            import: { dry_run: false, lines: '30', messages: '18', partitions: ['5', '7', '6'], bad_lines: '0', first_bad: null, messages_before_first_bad: null, passed_over: '12' },
          },
        });
      }
      return ok(run);
    };
    const r = await open();
    await fireEvent.click(r.getByTestId('cluster-import'));
    await fireEvent.input(r.getByTestId('cluster-import-path-input'), { target: { value: '/tmp/orders.jsonl' } });
    await fireEvent.click(r.getByTestId('cluster-import-check'));
    await settle();
    expect(r.getByTestId('cluster-import-plan').textContent).toContain('30 records in the file. Importing writes 30 records to orders.');
    expect(r.getByTestId('cluster-import-submit').textContent).toBe('Import 30 records');
    await fireEvent.click(r.getByTestId('cluster-import-submit'));
    await settle();
    expect(r.getByTestId('cluster-import-stopped').textContent).toContain('In orders: 11 records, every line before line 12 and 1 line after it.');
    await fireEvent.click(r.getByTestId('cluster-import-check'));
    await settle();
    expect(r.getByTestId('cluster-import-plan').textContent).toContain('the lines before line 12 and 1 line after it are in the topic already');
    expect(r.getByTestId('cluster-import-submit').textContent).toBe('Import the rest (from line 12)');
    await fireEvent.click(r.getByTestId('cluster-import-submit'));
    await settle();
    expect(r.getByTestId('cluster-import-result').textContent).toContain('18 records written to orders; 12 written before were passed over.');
    const sent = calls.filter((c) => c[0] === 'clusterImport').map((c) => (c[1] as { resume: unknown }).resume);
    expect(sent).toEqual([null, { line: '12', landed_after: ['14'] }]);
  });

  it('offers export but no import on a read-only connection', async () => {
    const r = await open(true);
    expect(r.queryByTestId('cluster-export')).not.toBeNull();
    expect(r.queryByTestId('cluster-import')).toBeNull();
  });
});
