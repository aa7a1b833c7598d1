import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterInfo, ConnectionTest, ConnectRequest, MessageRow, Page, SavedConnection } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import { ConnectForm, formProblem, outcomeOf } from './connect.svelte';
import { ClusterView, keyText, NOT_YET, recordKind, valueText } from './clusterView.svelte';
import ConnectDialog from './ConnectDialog.svelte';
import ClusterApp from './ClusterApp.svelte';
import { connectForm } from './connect.svelte';
import { clusterView } from './clusterView.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  resetBackend();
});
afterEach(() => cleanup());

const failure = (kind: string, words: string): ConnectionTest => ({ overview: null, failure: { kind, words, detail: 'io error: Connection refused (os error 111)', broker: 'h:9092' }, keychain_problem: null });

describe('the connect form', () => {
  it('says what is missing before anything is sent', () => {
    const f = new ConnectForm();
    expect(formProblem(f)).toMatch(/bootstrap servers/);
    f.bootstrap = 'broker:99999';
    expect(formProblem(f)).toMatch(/not HOST:PORT/);
    f.bootstrap = 'a:9092, b:9093';
    expect(formProblem(f)).toBeNull();
    f.sasl = true;
    expect(formProblem(f)).toMatch(/user name/);
    f.username = 'alice';
    expect(formProblem(f)).toMatch(/password/);
    f.savedPassword = true;
    expect(formProblem(f)).toBeNull();
    f.tls = true;
    f.certFile = '/c.pem';
    expect(formProblem(f)).toMatch(/both its certificate file and its key file/);
  });

  it('sends the settings without the password, and the password beside them only when SASL is on', () => {
    const f = new ConnectForm();
    f.bootstrap = ' a:9092 ,, b:9093 ';
    f.password = 'secret';
    let r: ConnectRequest = f.request();
    expect(r.settings).toEqual({ name: '', bootstrap: 'a:9092,b:9093', tls: null, sasl: null, read_only: false });
    expect(r.password).toBeNull();
    f.sasl = true;
    f.username = ' alice ';
    f.mechanism = 'SCRAM-SHA-512';
    f.tls = true;
    f.caFile = '/ca.pem';
    r = f.request();
    expect(r.settings.sasl).toEqual({ mechanism: 'SCRAM-SHA-512', username: 'alice' });
    expect(r.settings.tls).toEqual({ ca_file: '/ca.pem', cert_file: null, key_file: null });
    expect(JSON.stringify(r.settings)).not.toContain('secret');
    expect(r.password).toBe('secret');
  });

  it('names each failure in words', () => {
    expect(outcomeOf(failure('refused', 'the connection was refused: nothing listens at that address and port'))).toMatchObject({ ok: false, kind: 'refused', title: 'The connection was refused: nothing listens at that address and port' });
    const good: ConnectionTest = { overview: { cluster_id: 'abc', brokers: 1, topics: 3 }, failure: null, keychain_problem: null };
    expect(outcomeOf(good)).toEqual({ ok: true, title: 'Connected', detail: 'cluster abc: 1 broker, 3 topics', kind: 'ok' });
  });

  it('fills from a saved connection and forgets the typed password when closed', () => {
    const f = new ConnectForm();
    const saved: SavedConnection = { id: '1', password_saved: true, settings: { name: 'prod', bootstrap: 'k:9093', tls: { ca_file: '/ca', cert_file: null, key_file: null }, sasl: { mechanism: 'SCRAM-SHA-256', username: 'bob' } } };
    f.show(saved);
    expect([f.bootstrap, f.tls, f.caFile, f.sasl, f.username, f.savedId]).toEqual(['k:9093', true, '/ca', true, 'bob', '1']);
    expect(f.request()).toMatchObject({ saved: '1', password: null });
    f.password = 'typed';
    f.close();
    expect(f.password).toBe('');
  });
});

describe('the connect dialog', () => {
  it('tests the connection and shows what failed, then connects and closes', async () => {
    answers.testConnection = ok(failure('name_not_found', "the broker's host name was not found (DNS)"));
    answers.connectCluster = ok({ overview: { cluster_id: 'c1', brokers: 1, topics: 0 }, failure: null, keychain_problem: null });
    answers.savedConnections = ok([]);
    connectForm.show();
    const { getByTestId, queryByTestId } = render(ConnectDialog);
    await fireEvent.input(getByTestId('connect-bootstrap'), { target: { value: 'nowhere.invalid:9092' } });
    await fireEvent.click(getByTestId('connect-test'));
    await settle();
    expect(getByTestId('connect-outcome').dataset.kind).toBe('name_not_found');
    expect(getByTestId('connect-outcome').textContent).toMatch(/host name was not found \(DNS\)/);
    expect(calls.find((c) => c[0] === 'testConnection')?.[1]).toMatchObject({ settings: { bootstrap: 'nowhere.invalid:9092' } });
    await fireEvent.click(getByTestId('connect-go'));
    await settle();
    expect(calls.some((c) => c[0] === 'connectCluster')).toBe(true);
    expect(connectForm.open).toBe(false);
    expect(queryByTestId('connect-keychain')).toBeNull();
  });

  it('stays open and says so when the keychain could not take the password', async () => {
    answers.connectCluster = ok({ overview: { cluster_id: 'c1', brokers: 1, topics: 0 }, failure: null, keychain_problem: 'no keychain is available on this system' });
    answers.savedConnections = ok([]);
    connectForm.show();
    connectForm.bootstrap = 'k:9092';
    connectForm.sasl = true;
    connectForm.username = 'u';
    connectForm.password = 'p';
    const { getByTestId } = render(ConnectDialog);
    await fireEvent.click(getByTestId('connect-go'));
    await settle();
    expect(connectForm.open).toBe(true);
    expect(getByTestId('connect-keychain').textContent).toMatch(/no keychain/);
  });
});

const row = (offset: string, extra: Partial<MessageRow> = {}): MessageRow => ({
  partition: 0, offset, key: `k${offset}`, key_kind: 'str', timestamp: 1765000000 + Number(offset), kind: 'str', text: `v${offset}`, hex: null,
  class: null, type_id: null, fields_json: null, fields_pretty: null, size: 2, truncated: false,
  kafka: { key_null: false, key_binary: false, key_size: 2, value_null: false, headers: [{ name: 'h', text: 'x', hex: '78', null: false }] },
  ...extra,
});
const page = (from: number, n: number, end: number): Page => ({ partition: 0, rows: Array.from({ length: n }, (_, i) => ({ row: 'message' as const, ...row(String(from + i)) })), next: String(from + n), end: String(end), incarnation: null });
const info: ClusterInfo = {
  name: 'local', bootstrap: '127.0.0.1:9092', cluster_id: 'twainmq-test', read_only: false,
  topics: [
    { name: 'orders', messages: '250', partitions: [{ partition: 0, low: '0', high: '150', messages: '150' }, { partition: 1, low: '10', high: '110', messages: '100' }] },
    { name: 'audit', messages: '0', partitions: [{ partition: 0, low: '0', high: '0', messages: '0' }] },
  ],
};

describe('a cluster window', () => {
  it('lists topics, reads a partition from its first offset, pages on, and jumps to a time', async () => {
    answers.clusterInfo = ok(info);
    answers.readPage = (_t: string, _p: number, from: string) => ok(page(Number(from), Math.min(100, 150 - Number(from)), 150));
    answers.offsetAtTime = ok('42');
    const v = new ClusterView();
    await v.load();
    expect(v.info?.topics.map((t) => t.name)).toEqual(['orders', 'audit']);
    await v.pick('orders');
    expect(calls.at(-1)).toEqual(['readPage', 'orders', 0, '0', 100]);
    await v.pick('audit');
    expect(calls.at(-1)).toEqual(['readPage', 'audit', 0, '0', 100]);
    await v.pick('orders');
    expect(v.rows.length).toBe(100);
    await v.read(v.next);
    expect(v.from).toBe('100');
    expect(v.rows.map((r) => r.offset).slice(0, 2)).toEqual(['100', '101']);
    await v.pickPartition(1);
    expect(calls.at(-1)).toEqual(['readPage', 'orders', 1, '10', 100]);
    await v.previous();
    expect(calls.at(-1)).toEqual(['readPage', 'orders', 1, '10', 100]);
    await v.jumpToTime(1765000042);
    expect(calls.at(-2)).toEqual(['offsetAtTime', 'orders', 1, 1765000042]);
    expect(calls.at(-1)).toEqual(['readPage', 'orders', 1, '42', 100]);
    await v.read('12x');
    expect(v.pageError).toMatch(/not an offset/);
    v.filter = 'AUD';
    expect(v.rowsShown.map((r) => (r.kind === 'topic' ? r.topic.name : r.prefix))).toEqual(['audit']);
  });

  it('says a null key, a tombstone and binary values as such', () => {
    expect(keyText(row('1', { key: '', kafka: { key_null: true, key_binary: false, key_size: 0, value_null: false, headers: [] } }))).toBe('(null)');
    expect(valueText(row('1', { kind: 'bytes', text: null, hex: null, size: 0, kafka: { key_null: false, key_binary: false, key_size: 1, value_null: true, headers: [] } }))).toMatch(/tombstone/);
    expect(valueText(row('1', { kind: 'bytes', text: null, hex: 'ff00' }))).toBe('0xff00');
    expect(recordKind(row('1', { kind: 'bytes', text: null, hex: null, kafka: { key_null: false, key_binary: false, key_size: 1, value_null: true, headers: [] } }))).toBe('tombstone');
    expect(recordKind(row('1', { kind: 'bytes', text: null, hex: 'ff00' }))).toBe('bytes');
    expect(recordKind(row('1', { text: '{"a": [1, 2]}' }))).toBe('JSON');
    expect(recordKind(row('1', { text: '{"a": [1, 2', truncated: true }))).toBe('JSON');
    expect(recordKind(row('1', { text: '{"a": [1, 2' }))).toBe('text');
    expect(recordKind(row('1', { text: '42 apples' }))).toBe('text');
  });

  it('picks the first partition that holds records', async () => {
    answers.clusterInfo = ok({ ...info, topics: [{ name: 'sparse', messages: '5', partitions: [{ partition: 0, low: '0', high: '0', messages: '0' }, { partition: 1, low: '7', high: '12', messages: '5' }] }] });
    answers.readPage = ok(page(7, 5, 12));
    const v = new ClusterView();
    await v.load();
    await v.pick('sparse');
    expect(calls.at(-1)).toEqual(['readPage', 'sparse', 1, '7', 100]);
    expect(v.partition).toBe(1);
  });

  it('shows the topics and records, offers no delete or reset: it says what is not there yet', async () => {
    answers.clusterInfo = ok(info);
    answers.readPage = ok(page(0, 3, 150));
    clusterView.topic = null;
    const { getByTestId, getAllByTestId, queryByText } = render(ClusterApp);
    await settle();
    await settle();
    expect(getByTestId('cluster-name').textContent).toBe('local');
    await fireEvent.click(getByTestId('cluster-topic-orders'));
    await settle();
    expect(getAllByTestId('cluster-record').length).toBe(3);
    expect(getByTestId('cluster-partitions').textContent).toMatch(/150/);
    expect(getByTestId('cluster-detail-headers').textContent).toMatch(/h\s*x/);
    // No produce, delete, search or files: said, not offered.
    for (const word of [/^Produce$/, /Delete topic/, /^Files$/]) expect(queryByText(word)).toBeNull();
    const notYet = getByTestId('cluster-not-yet').textContent ?? '';
    for (const n of NOT_YET) expect(notYet).toContain(n.what);
    expect(document.querySelectorAll('button').length).toBeGreaterThan(0);
    // It writes one record at a time (Produce…, Republish…); nothing that deletes or resets.
    expect([...document.querySelectorAll('button')].some((b) => /delete|purge|reset/i.test(b.textContent ?? ''))).toBe(false);
    expect(getByTestId('cluster-produce').textContent).toBe('Produce…');
  });
});
