// What the app says of topics: New Topic offers what the CLI and 0.2.3 make, and a topic
// is called deleted and made again only when it was (checked against the recorded backend;
// tests/e2e/app-screens.test.mjs checks the same screens in the real app).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from '../app/App.svelte';
import { app } from '../app/app.svelte';
import { prefs } from '../app/prefs.svelte';
import { freshLaunch, mock, openDemo, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => cleanup());

describe('New Topic offers what the CLI and 0.2.3 make', () => {
  it('opens on a u16 key and one partition', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('create-topic'));
    expect((getByTestId('create-topic-key-type') as HTMLSelectElement).value).toBe('u16');
    expect((getByTestId('create-topic-partitions') as HTMLInputElement).value).toBe('1');
  });

  it('offers keys of any kind and large messages, says 0.2.3 cannot open such a topic, and sends them', async () => {
    const { getByTestId, queryByTestId } = await openDemo();
    await fireEvent.click(getByTestId('create-topic'));
    const kinds = [...(getByTestId('create-topic-key-type') as HTMLSelectElement).options].map((o) => o.value);
    expect(kinds).toEqual(['u8', 'u16', 'u32', 'u64', 'charN', 'text', 'bytes', 'any']);
    expect(queryByTestId('create-topic-next-format')).toBeNull();
    await fireEvent.input(getByTestId('create-topic-name'), { target: { value: 'kafka-copy' } });
    await fireEvent.change(getByTestId('create-topic-key-type'), { target: { value: 'any' } });
    expect(getByTestId('create-topic-key-hint').textContent).toMatch(/no key at all/);
    await fireEvent.click(getByTestId('create-topic-large'));
    await fireEvent.input(getByTestId('create-topic-max-mib'), { target: { value: '16' } });
    expect(getByTestId('create-topic-next-format').textContent).toMatch(/0\.2\.3 cannot open this topic \(any keys and large messages\)/);
    await fireEvent.click(getByTestId('create-topic-submit'));
    await until(() => mock().calls.some((c) => c[0] === 'createTopic'), 'create asked');
    expect(mock().calls.find((c) => c[0] === 'createTopic')![1]).toEqual({ name: 'kafka-copy', key_type: 'any', partitions: 1, message_types: [], max_message_bytes: String(16 * 1048576) });
  });
});

describe('a refusal goes once the form changes', () => {
  it('New Topic: the refusal of one name is not shown under the next', async () => {
    const { getByTestId, queryByTestId } = await openDemo();
    await fireEvent.click(getByTestId('create-topic'));
    await fireEvent.input(getByTestId('create-topic-name'), { target: { value: 'refused-name' } });
    await fireEvent.click(getByTestId('create-topic-submit'));
    await until(() => !!queryByTestId('create-topic-error'), 'the refusal');
    await fireEvent.input(getByTestId('create-topic-name'), { target: { value: 'another-name' } });
    await until(() => queryByTestId('create-topic-error') === null, 'the refusal cleared');
  });
});

describe('a store this user cannot write', () => {
  it('offers no Produce, Import or Delete, and says why', async () => {
    mock().readOnly = 'this store\'s folder /s cannot be written by this user (Permission denied): it is open for reading only';
    const r = await openDemo();
    await fireEvent.click(r.getByTestId('topic-item-orders'));
    await until(() => !!document.querySelector('[data-testid=import-open]'), 'orders shown');
    for (const id of ['tab-produce', 'import-open', 'delete-topic']) {
      const b = r.getByTestId(id) as HTMLButtonElement;
      expect(b.disabled, id).toBe(true);
      expect(b.title, id).toMatch(/cannot be written by this user/);
    }
  });

  it('offers them on a store it can write', async () => {
    const r = await openDemo();
    await fireEvent.click(r.getByTestId('topic-item-orders'));
    await until(() => !!document.querySelector('[data-testid=import-open]'), 'orders shown');
    for (const id of ['tab-produce', 'import-open', 'delete-topic']) expect((r.getByTestId(id) as HTMLButtonElement).disabled, id).toBe(false);
  });
});

describe('no false "deleted and made again"', () => {
  it('a view being replaced does not compare the next topic with its own', async () => {
    const r = await openDemo();
    await fireEvent.click(r.getByTestId('topic-item-orders'));
    await until(() => !!document.querySelector('[data-testid=tab-messages]'), 'orders shown');
    await new Promise((res) => setTimeout(res, 50));
    // A change to orders: its view's next reload waits out the refresh spacing...
    mock().emitChange({ topics: ['orders'], groups: [], structure: false });
    await new Promise((res) => setTimeout(res, 20));
    // ...while another topic is opened in its place.
    await fireEvent.click(r.getByTestId('topic-item-chat'));
    await new Promise((res) => setTimeout(res, 1500));
    expect(app.status).not.toMatch(/deleted and made again/);
    expect(document.querySelector('[data-testid=topic-remade]')).toBeNull();
  });
});
