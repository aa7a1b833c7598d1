import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import ProduceTab from './ProduceTab.svelte';
import { describe_, mock, until } from '../../tests/helpers';
import { app } from '../app/app.svelte';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());
beforeEach(() => {
  mock().seed();
  mock().calls = [];
});
afterEach(() => cleanup());

describe('produce', () => {
  it('sends a text message and shows its partition and offset', async () => {
    // The engine's answer to this very message (recorded), then the row at that offset.
    const detail = await describe_('chat');
    const { getByTestId } = render(ProduceTab, { topic: 'chat', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('produce-key'), { target: { value: 'ada' } });
    await fireEvent.change(getByTestId('produce-kind'), { target: { value: 'text' } });
    await fireEvent.input(getByTestId('produce-body'), { target: { value: 'hello from a test' } });
    await fireEvent.click(getByTestId('produce-send'));
    await until(() => !!document.querySelector('[data-testid=produce-result]'), 'result');
    const m = getByTestId('produce-result').textContent!.match(/→ partition (\d+), offset (\d+)/);
    expect(m).toBeTruthy();
    const [, p, o] = m!;
    const r = await mock().backend().readPage('chat', Number(p), o, 1);
    expect(r.status === 'ok' && r.data.rows[0]).toMatchObject({ text: 'hello from a test', key: 'ada' });
  });

  it('sends typed JSON with big integers untouched, with Ctrl+Enter', async () => {
    const detail = await describe_('orders');
    const { getByTestId } = render(ProduceTab, { topic: 'orders', detail, tz: 'utc' });
    expect((getByTestId('produce-kind') as HTMLSelectElement).value).toBe('json');
    await fireEvent.input(getByTestId('produce-key'), { target: { value: '4294967295' } });
    await fireEvent.input(getByTestId('produce-body'), { target: { value: '{"id": 98765432109876543210, "price": 1.50}' } });
    await fireEvent.keyDown(window, { key: 'Enter', ctrlKey: true });
    await until(() => !!document.querySelector('[data-testid=produce-result]'), 'result');
    const call = mock().calls.find((c) => c[0] === 'produce')!;
    expect(call[3]).toEqual({ kind: 'json', body: '{"id": 98765432109876543210, "price": 1.50}', class: 'Order', file: null });
    const [, p, o] = getByTestId('produce-result').textContent!.match(/→ partition (\d+), offset (\d+)/)!;
    const r = await mock().backend().readPage('orders', Number(p), o, 1);
    // As stored: the big integer exact, 1.50 as written.
    expect(r.status === 'ok' && r.data.rows[0]).toMatchObject({ key: '4294967295', class: 'Order', fields_json: '{"id":98765432109876543210,"price":1.50}' });
  });

  it('validates the key against the key type as you type', async () => {
    const detail = await describe_('orders'); // u32
    const { getByTestId } = render(ProduceTab, { topic: 'orders', detail, tz: 'utc' });
    const send = getByTestId('produce-send') as HTMLButtonElement;
    await fireEvent.input(getByTestId('produce-key'), { target: { value: '4294967296' } });
    expect(getByTestId('produce-key-hint').textContent).toMatch(/too large for u32/);
    expect(send.disabled).toBe(true);
    await fireEvent.input(getByTestId('produce-key'), { target: { value: '12a' } });
    expect(getByTestId('produce-key-hint').textContent).toMatch(/digits 0-9 only/);
    await fireEvent.input(getByTestId('produce-key'), { target: { value: '4294967295' } });
    expect(getByTestId('produce-key-hint').textContent).toMatch(/whole number from 0 to 4,294,967,295/);
    expect(send.disabled).toBe(false);
  });

  it('counts UTF-8 bytes for charN keys', async () => {
    const detail = await describe_('chat'); // char12
    const { getByTestId } = render(ProduceTab, { topic: 'chat', detail, tz: 'utc' });
    await fireEvent.input(getByTestId('produce-key'), { target: { value: 'ééééééé' } }); // 14 bytes
    expect(getByTestId('produce-key-hint').textContent).toMatch(/14 bytes.*at most 12/);
  });

  it('shows a backend error inline', async () => {
    const detail = await describe_('sensors');
    const { getByTestId } = render(ProduceTab, { topic: 'sensors', detail, tz: 'utc' });
    mock().replaceExternally('sensors'); // deleted behind the app's back
    await fireEvent.input(getByTestId('produce-key'), { target: { value: '7' } });
    await fireEvent.input(getByTestId('produce-body'), { target: { value: 'x' } });
    await fireEvent.click(getByTestId('produce-send'));
    await until(() => !!document.querySelector('[data-testid=produce-error]'), 'error');
    expect(getByTestId('produce-error').textContent).toMatch(/topic "sensors" does not exist/);
  });

  it('types keys as text, hex or none on a topic of free keys, and sends a file as the value', async () => {
    const detail = await describe_('blobs');
    const { getByTestId, queryByTestId } = render(ProduceTab, { topic: 'blobs', detail, tz: 'utc' });
    for (const w of ['text', 'hex', 'none']) expect(queryByTestId(`produce-key-as-${w}`)).not.toBeNull();
    await fireEvent.click(getByTestId('produce-key-as-hex'));
    await fireEvent.input(getByTestId('produce-key'), { target: { value: 'de ad zz' } });
    expect(getByTestId('produce-key-hint').textContent).toMatch(/0-9|hex|a-f/);
    expect((getByTestId('produce-send') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(getByTestId('produce-key'), { target: { value: '0xDEAD beef' } });
    await fireEvent.change(getByTestId('produce-kind'), { target: { value: 'file' } });
    await fireEvent.input(getByTestId('produce-file'), { target: { value: '/home/you/photo.png' } });
    await fireEvent.click(getByTestId('produce-send'));
    await until(() => mock().calls.some((c) => c[0] === 'produce'), 'sent');
    const sent = mock().calls.filter((c) => c[0] === 'produce');
    expect(sent[0].slice(2)).toEqual([{ as: 'hex', hex: 'DEADbeef' }, { kind: 'bytes', body: '', class: null, file: '/home/you/photo.png' }]);
    // No key: the key box is off and the key goes as none.
    await fireEvent.click(getByTestId('produce-key-as-none'));
    expect((getByTestId('produce-key') as HTMLInputElement).disabled).toBe(true);
    await fireEvent.click(getByTestId('produce-send'));
    await until(() => mock().calls.filter((c) => c[0] === 'produce').length === 2, 'sent again');
    expect(mock().calls.filter((c) => c[0] === 'produce')[1][2]).toEqual({ as: 'none' });
  });

  it('takes only text keys on a u64 topic, as before', async () => {
    const detail = await describe_('orders');
    const { queryByTestId } = render(ProduceTab, { topic: 'orders', detail, tz: 'utc' });
    expect(queryByTestId('produce-key-as-hex')).toBeNull();
  });

  it('fills the form from a message with no key or a bytes key as such (Re-produce), not as the empty text', async () => {
    const detail = await describe_('blobs');
    app.produceDraft = { topic: 'blobs', key: '', keyAs: 'none', kind: 'text', body: 'a message without a key', class: null };
    const none = render(ProduceTab, { topic: 'blobs', detail, tz: 'utc' });
    await until(() => none.getByTestId('produce-key-as-none').getAttribute('aria-checked') === 'true', 'no key');
    expect((none.getByTestId('produce-key') as HTMLInputElement).disabled).toBe(true);
    cleanup();
    app.produceDraft = { topic: 'blobs', key: 'deadbeef', keyAs: 'hex', kind: 'hex', body: '00', class: null };
    const hex = render(ProduceTab, { topic: 'blobs', detail, tz: 'utc' });
    await until(() => hex.getByTestId('produce-key-as-hex').getAttribute('aria-checked') === 'true', 'hex key');
    expect((hex.getByTestId('produce-key') as HTMLInputElement).value).toBe('deadbeef');
  });
});
