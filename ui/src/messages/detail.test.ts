import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import DetailPane from './DetailPane.svelte';
import type { Row } from '../backend';
import { recording, settle, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());
afterEach(() => cleanup());

const typed: Row = {
  row: 'message',
  partition: 0,
  offset: '4',
  key: '18446744073709551615',
  key_kind: 'int',
  timestamp: 1795695210.4,
  kind: 'dataclass',
  text: null,
  hex: null,
  class: 'Order',
  type_id: 0,
  fields_json: '{"id":123456789012345678901234567890,"item":"lamp","price":19.90}',
  fields_pretty: '{\n  "id": 123456789012345678901234567890,\n  "item": "lamp",\n  "price": 19.90\n}',
  size: 63,
  truncated: false,
};

describe('the detail pane', () => {
  it('copies a row as JSON with big integers exact', async () => {
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (s: string) => void (copied = s) } });
    const oncopied = vi.fn();
    const { getByTestId } = render(DetailPane, { row: typed, tz: 'utc', oncopied });
    await fireEvent.click(getByTestId('detail-copy-json'));
    await settle();
    expect(oncopied).toHaveBeenCalledWith(true);
    expect(copied).toContain('"id":123456789012345678901234567890');
    expect(copied).toContain('"key":18446744073709551615');
    expect(copied).toContain('"price":19.90');
    expect(copied.startsWith('{"partition":0,"offset":4,')).toBe(true);
  });

  it('shows typed fields and pretty JSON exactly', async () => {
    const { getByTestId } = render(DetailPane, { row: typed, tz: 'utc', view: 'fields' });
    const fields = getByTestId('detail-fields').textContent!;
    expect(fields).toContain('Order');
    expect(fields).toContain('123456789012345678901234567890');
    await fireEvent.click(getByTestId('detail-tab-json'));
    await fireEvent.click(getByTestId('detail-json-as-text'));
    expect(getByTestId('detail-json').textContent).toBe(typed.fields_pretty);
  });

  it('pretty-prints JSON text, but shows text with integers past 2^53 as written', async () => {
    const text = (t: string): Row => ({ ...typed, kind: 'str', text: t, class: null, type_id: null, fields_json: null, fields_pretty: null });
    const small = render(DetailPane, { row: text('{"a":1,"b":[2.50]}'), tz: 'utc', view: 'json' });
    await fireEvent.click(small.getByTestId('detail-json-as-text'));
    expect(small.getByTestId('detail-json').textContent).toBe('{\n  "a": 1,\n  "b": [\n    2.50\n  ]\n}');
    cleanup();
    const raw = '{"id":18446744073709551615,"x":1}';
    const big = render(DetailPane, { row: text(raw), tz: 'utc', view: 'json' });
    await fireEvent.click(big.getByTestId('detail-json-as-text'));
    expect(big.getByTestId('detail-json').textContent).toBe(raw);
    cleanup();
    const plain = render(DetailPane, { row: text('hello'), tz: 'utc', view: 'json' });
    expect((plain.getByTestId('detail-tab-json') as HTMLButtonElement).disabled).toBe(true);
    expect(plain.getByTestId('detail-text').textContent).toBe('hello');
  });

  it('shows JSON as a tree: folds, colours by type, copies paths the filter box takes and exact values', async () => {
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (s: string) => void (copied = s) } });
    const src = '{"id":18446744073709551615,"order":{"items":[{"sku":"A-1","qty":2},{"sku":"B-2","qty":1}],"content-type":"json","in":true,"note":null},"price":19.90,"name":"caf\\u00e9 <b>x</b>"}';
    const row: Row = { ...typed, kind: 'str', text: src, class: null, type_id: null, fields_json: null, fields_pretty: null };
    const oncopied = vi.fn();
    const { getByTestId } = render(DetailPane, { row, tz: 'utc', view: 'json', oncopied });
    const nodes = () => [...document.querySelectorAll<HTMLElement>('[data-testid=json-node]')];
    const at = (path: string) => nodes().find((n) => n.dataset.path === path)!;
    expect(getByTestId('json-tree')).toBeTruthy();
    // Every node, its path as the filter language writes it.
    expect(nodes().map((n) => n.dataset.path)).toEqual([
      'value', 'value.id', 'value.order', 'value.order.items', 'value.order.items[0]', 'value.order.items[0].sku', 'value.order.items[0].qty',
      'value.order.items[1]', 'value.order.items[1].sku', 'value.order.items[1].qty', 'value.order["content-type"]', 'value.order["in"]', 'value.order.note',
      'value.price', 'value.name',
    ]);
    // Scalars as stored (no rounding past 2^53, 19.90 not 19.9), typed for colour; text as text, never markup.
    const value = (p: string) => at(p).querySelector('[data-testid=json-value]')!;
    expect(value('value.id').textContent).toBe('18446744073709551615');
    expect(at('value.id').dataset.type).toBe('number');
    expect(value('value.price').textContent).toBe('19.90');
    expect(value('value.order["in"]').className).toContain('lit-bool');
    expect(value('value.order.note').className).toContain('lit-null');
    expect(value('value.name').textContent).toBe('"café <b>x</b>"');
    expect(getByTestId('json-tree').querySelector('b')).toBeNull();
    // Fold one, then all, then open all again.
    await fireEvent.click(at('value.order.items').querySelector('[data-testid=json-toggle]')!);
    expect(nodes().some((n) => n.dataset.path === 'value.order.items[0]')).toBe(false);
    expect(at('value.order.items').querySelector('[data-testid=json-summary]')!.textContent).toBe('[…] 2 items');
    await fireEvent.click(getByTestId('json-collapse-all'));
    expect(nodes().map((n) => n.dataset.path)).toEqual(['value', 'value.id', 'value.order', 'value.price', 'value.name']);
    expect(at('value.order').querySelector('[data-testid=json-summary]')!.textContent).toBe('{…} 4 keys');
    await fireEvent.click(getByTestId('json-expand-all'));
    expect(nodes()).toHaveLength(15);
    // Copy a path, and a value exactly as stored.
    await fireEvent.click(at('value.order.items[1].sku').querySelector('[data-testid=json-copy-path]')!);
    await settle();
    expect(copied).toBe('value.order.items[1].sku');
    expect(oncopied).toHaveBeenLastCalledWith(true, 'path');
    await fireEvent.click(at('value.id').querySelector('[data-testid=json-copy-value]')!);
    await settle();
    expect(copied).toBe('18446744073709551615');
    await fireEvent.click(at('value.order.items').querySelector('[data-testid=json-copy-value]')!);
    await settle();
    expect(copied).toBe('[{"sku":"A-1","qty":2},{"sku":"B-2","qty":1}]');
    await fireEvent.click(at('value.name').querySelector('[data-testid=json-copy-value]')!);
    await settle();
    expect(copied).toBe('café <b>x</b>');
  });

  it('dumps bytes as hex with an offset column and ASCII', async () => {
    const bytes: Row = { ...typed, kind: 'bytes', hex: '48656c6c6f00ff', class: null, type_id: null, fields_json: null, fields_pretty: null };
    const { getByTestId } = render(DetailPane, { row: bytes, tz: 'utc', view: 'hex' });
    expect(getByTestId('detail-hex').textContent).toMatch(/0000\s*48 65 6c 6c 6f 00 ff\s*Hello··/);
  });

  it('shows the raw line with its file and line number, fetched for the row', async () => {
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void (copied = t) } });
    const row: Row = { ...typed, partition: 1, offset: '3', kind: 'str', text: 'hello', class: null, type_id: null, fields_json: null, fields_pretty: null, key: '7' };
    const { getByTestId, rerender } = render(DetailPane, { row, topic: 'orders', tz: 'utc' });
    await until(() => !!document.querySelector('[data-testid=detail-raw-file]'), 'raw line');
    expect(getByTestId('detail-raw-file').textContent).toMatch(/^1-\d{8}_0\.tmf:4$/);
    const raw = getByTestId('detail-raw-text').textContent!;
    expect(raw).toBe(recording.topics.orders.raw_lines['1:3']!.raw); // the line as the engine read it
    await fireEvent.click(getByTestId('detail-raw-copy'));
    await settle();
    expect(copied).toBe(raw);
    // Another row: fetched again.
    await rerender({ row: { ...row, offset: '60' }, topic: 'orders', tz: 'utc' });
    const file = () => document.querySelector('[data-testid=detail-raw-file]')?.textContent ?? '';
    await until(() => /^1-\d{8}_\d+\.tmf:\d+$/.test(file()) && !file().endsWith('_0.tmf:4'), 'the new raw line');
    const [, first, line] = /_(\d+)\.tmf:(\d+)$/.exec(file())!;
    expect(Number(first) + Number(line) - 1).toBe(60);
  });

  it('says when the line is gone', async () => {
    const row: Row = { ...typed, partition: 0, offset: '99999' };
    const { getByTestId } = render(DetailPane, { row, topic: 'orders', tz: 'utc' });
    await until(() => /no longer in the log/.test(getByTestId('detail-raw').textContent!), 'gone');
  });
});
