// Following the tail: a follow that stops says so.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from '../app/App.svelte';
import { app } from '../app/app.svelte';
import { prefs } from '../app/prefs.svelte';
import { freshLaunch, mock, openDemo, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => cleanup());

describe('a follow that stops says so', () => {
  const behind = () => document.querySelector('[data-testid=follow-behind]');
  async function followChat() {
    const r = await openDemo();
    await fireEvent.click(r.getByTestId('topic-item-chat'));
    await until(() => !!document.querySelector('[data-testid=follow-toggle]'), 'the chat messages');
    const toggle = r.getByTestId('follow-toggle');
    if (toggle.getAttribute('aria-pressed') !== 'true') await fireEvent.click(toggle);
    return r;
  }
  /** Append to chat every 100 ms for `ms`, as a busy producer would. */
  let sent = 0;
  async function produceFor(ms: number) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      mock().appendNow('chat', 'ada', { text: `busy ${sent++}` }, 0);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('keeps quiet while the table keeps up with a busy log', async () => {
    await followChat();
    await produceFor(4500);
    expect(behind()).toBeNull();
  }, 15000);

  it('follows a busy timeline after a row was clicked, Esc, F (it froze there)', async () => {
    const r = await followChat();
    mock().latency = 20; // reads take a moment: describes of the growing log arrive meanwhile
    try {
      await produceFor(500);
      // Click a row (follow stops), Esc, then F: follow again.
      await until(() => document.querySelectorAll('[data-testid=message-row]').length > 3, 'rows');
      await fireEvent.click(document.querySelectorAll<HTMLElement>('[data-testid=message-row]')[2]);
      await fireEvent.keyDown(document.body, { key: 'Escape' });
      const producing = produceFor(3000);
      await new Promise((res) => setTimeout(res, 400));
      if (r.getByTestId('follow-toggle').getAttribute('aria-pressed') !== 'true') await fireEvent.keyDown(document.body, { key: 'f' });
      expect(r.getByTestId('follow-toggle').getAttribute('aria-pressed')).toBe('true');
      await producing;
      // Every message produced is on screen within a moment: the newest row is the last sent.
      const lastSent = sent - 1;
      const newest = () => [...document.querySelectorAll<HTMLElement>('[data-testid=message-row]')].some((e) => e.textContent!.includes(`busy ${lastSent}`));
      await until(newest, `the newest message (busy ${lastSent}) on screen`, 3000);
    } finally {
      mock().latency = 0;
    }
  }, 20000);

  it('says how far behind and for how long when the table stops moving', async () => {
    await followChat();
    await produceFor(300);
    // Reads stop answering (the backend stuck): the log grows, the table cannot move on.
    const never = new Promise<void>(() => {});
    for (const read of ['readPage', 'timelineAfter', 'timelineBefore']) mock().held.set(read, never);
    await produceFor(4000);
    await until(() => !!behind(), 'the stall said', 3000);
    expect(behind()!.textContent).toMatch(/follow is [\d,]+ rows behind \(\d+ s\)/);
    mock().held.clear();
  }, 15000);
});
