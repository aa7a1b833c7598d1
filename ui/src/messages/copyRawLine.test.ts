// Copy Raw Line (Edit menu, Ctrl/Cmd+Shift+L): the line of the selected message as stored, or
// of the rows picked, in the order picked, one a line; said in the status bar.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import MessagesTab from './MessagesTab.svelte';
import { actions } from '../app/actions.svelte';
import { app } from '../app/app.svelte';
import { describe_, mock, recording, rows, settle, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

let copied: string | null = null;
beforeEach(() => {
  mock().seed();
  mock().calls = [];
  copied = null;
  app.status = '';
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (s: string) => void (copied = s) } });
});
afterEach(() => cleanup());

const raw = (partition: number, offset: string) => recording.topics.orders.raw_lines[`${partition}:${offset}`]!.raw;

async function openOrders() {
  const detail = await describe_('orders');
  render(MessagesTab, { topic: 'orders', detail, tz: 'utc', link: { partition: 0 } });
  await until(() => rows().length > 3, 'rows');
}

describe('copy raw line', () => {
  it('copies the selected message as stored, from the menu or its keys', async () => {
    await openOrders();
    actions.run('copy-raw-line');
    await until(() => app.status !== '', 'a word');
    expect(app.statusError).toBe(true);
    expect(copied).toBeNull();

    await fireEvent.click(rows()[2].parentElement!);
    const offset = rows()[2].dataset.offset!;
    actions.run('copy-raw-line');
    await until(() => copied !== null, 'copied');
    expect(copied).toBe(raw(0, offset));
    expect(app.status).toBe('Copied the raw line');

    copied = null;
    // The app's window handler: the menu's accelerators, as the bindings carry them.
    actions.onKey(new KeyboardEvent('keydown', { key: 'L', ctrlKey: true, shiftKey: true }));
    await until(() => copied !== null, 'copied by Ctrl+Shift+L');
    expect(copied).toBe(raw(0, offset));
  });

  it('copies the raw lines of the rows picked, in the order picked, one a line', async () => {
    await openOrders();
    await fireEvent.click(rows()[3].parentElement!, { ctrlKey: true });
    await fireEvent.click(rows()[1].parentElement!, { ctrlKey: true });
    const [a, b] = [rows()[3].dataset.offset!, rows()[1].dataset.offset!];
    actions.run('copy-raw-line');
    await until(() => copied !== null, 'copied');
    expect(copied).toBe(`${raw(0, a)}\n${raw(0, b)}`);
    expect(app.status).toBe('Copied 2 raw lines');
    // One request for the lot.
    await settle();
    expect(mock().calls.filter((c) => c[0] === 'rawLines')).toHaveLength(1);
  });
});
