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
