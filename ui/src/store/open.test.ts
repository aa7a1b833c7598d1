// Opening what is not a store: the window says so and what to do; a store is made only on request.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from '../app/App.svelte';
import { app } from '../app/app.svelte';
import { freshLaunch, mock, recording, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => cleanup());

/** Open a recent store from the welcome screen; the welcome error's text. */
async function openRecentFailing(path: string): Promise<string> {
  const { getAllByTestId, getByTestId } = render(App);
  await until(() => getAllByTestId('recent-store').length > 0, 'recent stores');
  await fireEvent.click(getAllByTestId('recent-store').find((b) => b.textContent === path)!);
  await until(() => !!document.querySelector('[data-testid=welcome-error]'), 'error');
  return getByTestId('welcome-error').textContent ?? '';
}

describe('opening what is not a store', () => {
  it('shows why the store named on the command line did not open, with the fix', async () => {
    const err = recording.open_errors['/data/pipeline'];
    if (err.status !== 'error') throw new Error('recorded as an error');
    mock().launch = { path: '/data/pipeline', error: err.error };
    const { getByTestId } = render(App);
    await until(() => !!document.querySelector('[data-testid=welcome-error]'), 'the launch error');
    const text = getByTestId('welcome-error').textContent ?? '';
    expect(text).toMatch(/Could not open \/data\/pipeline/);
    expect(text).toMatch(/empty folder/);
    expect(getByTestId('create-store-here')).toBeTruthy();
    expect(app.info).toBeNull();
  });

  it('names the sub-folder that holds a store, and offers no store in a folder of other files', async () => {
    const text = await openRecentFailing('/home/me/projects');
    expect(text).toMatch(/holds no TwainMQ store/);
    expect(text).toMatch(/\/home\/me\/projects\/orders-store holds one/);
    expect(text).toMatch(/pick the folder that holds the .twc files/);
    expect(text).toMatch(/not one above it/);
    expect(document.querySelector('[data-testid=create-store-here]')).toBeNull();
    expect(app.info).toBeNull();
  });

  it('says a file is not a folder, and offers no store where the file is', async () => {
    const text = await openRecentFailing('/home/me/orders.jsonl');
    expect(text).toMatch(/\/home\/me\/orders\.jsonl is a regular file, not a folder/);
    expect(text).toMatch(/Pick the store’s folder/);
    expect(text).not.toMatch(/create it first/);
    expect(document.querySelector('[data-testid=create-store-here]')).toBeNull();
    expect(app.info).toBeNull();
  });

  it('says nothing when the command line named no store', async () => {
    mock().launch = null;
    render(App);
    await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
    await until(() => mock().calls.some((c) => c[0] === 'launchError'), 'asked');
    expect(document.querySelector('[data-testid=welcome-error]')).toBeNull();
  });
});
