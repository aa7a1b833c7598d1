import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterInfo, ClusterProduceRequest, MessageRow, Page } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import { draftOf, draftProblem, emptyDraft, isHex, requestOf } from './produce';
import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';
import { produceForm } from './clusterProduce.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  resetBackend();
  clusterView.notice = null;
  clusterView.topic = null;
  clusterView.info = null;
  produceForm.open = false;
});
afterEach(() => cleanup());

function row(more: Partial<MessageRow> = {}): MessageRow {
  return {
    partition: 1,
    offset: '14',
    key: 'customer-7',
    key_kind: 'str',
    timestamp: 1765000000.25,
    kind: 'str',
    text: '{"order":7,"big":12345678901234567890}',
    hex: null,
    class: null,
    type_id: null,
    fields_json: null,
    fields_pretty: null,
    size: 38,
    truncated: false,
    kafka: {
      key_null: false,
      key_binary: false,
      key_size: 10,
      value_null: false,
      headers: [
        { name: 'trace', text: 't-1', hex: '742d31', null: false },
        { name: 'raw', text: null, hex: 'ff00', null: false },
        { name: 'gone', text: null, hex: null, null: true },
      ],
    },
    ...more,
  } as MessageRow;
}

describe('a produce draft', () => {
  it('says what is wrong before anything is sent', () => {
    const d = emptyDraft('orders');
    expect(draftProblem(d, 3, 'utc')).toBeNull();
    expect(draftProblem({ ...d, topic: '' }, null, 'utc')).toMatch(/Pick the topic/);
    expect(draftProblem(d, null, 'utc')).toMatch(/no topic orders \(a write never makes one\)/);
    expect(draftProblem({ ...d, partition: '3' }, 3, 'utc')).toMatch(/0 to 2/);
    expect(draftProblem({ ...d, keyMode: 'hex', key: 'abc' }, 3, 'utc')).toMatch(/key is not hex/);
    expect(draftProblem({ ...d, valueMode: 'json', value: '{"a":' }, 3, 'utc')).toMatch(/value is not JSON/);
    expect(draftProblem({ ...d, headers: [{ name: '', mode: 'text', text: 'x' }] }, 3, 'utc')).toMatch(/Header 1 has no name/);
    expect(draftProblem({ ...d, timeMode: 'at', timeText: 'yesterday-ish' }, 3, 'utc')).toMatch(/time is not one/);
    expect(isHex('0x00 ff 10')).toBe(true);
    expect(isHex('0f0')).toBe(false);
  });

  it('makes the request: nulls as nulls, hex as hex, a time typed in the chosen zone', () => {
    const d = { ...emptyDraft('orders'), partition: '2', keyMode: 'null' as const, valueMode: 'hex' as const, value: 'cafe', timeMode: 'at' as const, timeText: '2026-12-07 10:00:00' };
    d.headers = [
      { name: 'h', mode: 'null', text: 'ignored' },
      { name: 'h', mode: 'text', text: 'again' },
    ];
    const r = requestOf(d, 'utc');
    expect(r).toEqual({
      topic: 'orders',
      partition: 2,
      key: null,
      value: { encoding: 'hex', hex: 'cafe' },
      headers: [
        { name: 'h', value: null },
        { name: 'h', value: { encoding: 'text', text: 'again' } },
      ],
      timestamp_ms: Date.UTC(2026, 11, 7, 10),
    } satisfies ClusterProduceRequest);
    expect(requestOf({ ...emptyDraft('t'), valueMode: 'null' }, 'utc').value).toBeNull();
  });

  it('republishes a record exactly: its key, its value (a big number kept as written), headers with their nulls, its time on request', () => {
    const d = draftOf(row(), 'orders');
    expect(d.keyMode).toBe('text');
    expect(d.key).toBe('customer-7');
    expect(d.valueMode).toBe('json');
    const r = requestOf({ ...d, timeMode: 'keep' }, 'utc');
    expect(r.value).toEqual({ encoding: 'text', text: '{"order":7,"big":12345678901234567890}' });
    expect(r.headers).toEqual([
      { name: 'trace', value: { encoding: 'text', text: 't-1' } },
      { name: 'raw', value: { encoding: 'hex', hex: 'ff00' } },
      { name: 'gone', value: null },
    ]);
    expect(r.timestamp_ms).toBe(1765000000250);
    const binary = draftOf(row({ key: '0x00ff', text: null, hex: 'cafe', kafka: { ...row().kafka!, key_binary: true } }), 'orders');
    expect([binary.keyMode, binary.key, binary.valueMode, binary.value]).toEqual(['hex', '00ff', 'hex', 'cafe']);
    const tomb = draftOf(row({ text: null, kafka: { ...row().kafka!, key_null: true, value_null: true } }), 'orders');
    expect([tomb.keyMode, tomb.valueMode]).toEqual(['null', 'null']);
  });
});

const info = (readOnly: boolean): ClusterInfo => ({
  name: 'local',
  bootstrap: 'b:9092',
  cluster_id: 'c1',
  read_only: readOnly,
  topics: [
    { name: 'orders', messages: '1', partitions: [0, 1, 2].map((p) => ({ partition: p, low: '0', high: p === 1 ? '1' : '0', messages: p === 1 ? '1' : '0' })) },
    { name: 'dead-letters', messages: '0', partitions: [{ partition: 0, low: '0', high: '0', messages: '0' }] },
  ],
});
const page = (rows: MessageRow[]): Page => ({ partition: 1, rows: rows.map((r) => ({ row: 'message' as const, ...r })), next: '1', end: '1', incarnation: null });

describe('the cluster window writes', () => {
  it('republishes a record to another topic and says where it landed', async () => {
    answers.clusterInfo = ok(info(false));
    answers.readPage = ok(page([row({ offset: '0' })]));
    answers.clusterProduce = ok({ topic: 'dead-letters', partition: 0, offset: '0' });
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    await fireEvent.click(r.getByTestId('cluster-republish'));
    await settle();
    expect(r.getByTestId('produce-dialog').textContent).toMatch(/Republish orders\/1@0/);
    await fireEvent.change(r.getByTestId('produce-topic'), { target: { value: 'dead-letters' } });
    await fireEvent.click(r.getByTestId('produce-send'));
    await settle();
    const sent = calls.find(([n]) => n === 'clusterProduce')?.[1] as ClusterProduceRequest;
    expect(sent.topic).toBe('dead-letters');
    expect(sent.headers.map((h) => h.name)).toEqual(['trace', 'raw', 'gone']);
    expect(r.getByTestId('cluster-notice').textContent).toMatch(/Republished orders\/1@0 as dead-letters \/ 0 at offset 0/);
    expect(r.queryByTestId('produce-dialog')).toBeNull();
  });

  it('keeps the dialog and says the broker’s refusal', async () => {
    answers.clusterInfo = ok(info(false));
    answers.clusterProduce = { status: 'error', error: { code: 'kafka', message: 'Kafka at b:9092: write a record to orders failed: MESSAGE_TOO_LARGE' } };
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-produce'));
    await settle();
    await fireEvent.input(r.getByTestId('produce-value'), { target: { value: 'hello' } });
    await fireEvent.click(r.getByTestId('produce-send'));
    await settle();
    expect(r.getByTestId('produce-error').textContent).toMatch(/MESSAGE_TOO_LARGE/);
    expect(r.getByTestId('produce-dialog')).toBeTruthy();
  });

  it('offers no write on a read-only connection, and says it is read-only', async () => {
    answers.clusterInfo = ok(info(true));
    answers.readPage = ok(page([row({ offset: '0' })]));
    const r = render(ClusterApp);
    await settle();
    expect(r.getByTestId('cluster-read-only').textContent).toBe('read-only');
    expect(r.queryByTestId('cluster-produce')).toBeNull();
    await fireEvent.click(r.getByTestId('cluster-topic-orders'));
    await settle();
    expect(r.getByTestId('cluster-detail')).toBeTruthy();
    expect(r.queryByTestId('cluster-republish')).toBeNull();
  });
});
