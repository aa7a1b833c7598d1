import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import MessagesTab from './MessagesTab.svelte';
import { describe_, mock, recording, rows, settle, until } from '../../tests/helpers';
import type { RecordedTimeline } from '../backend/mock';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().seed();
  mock().calls = [];
});
afterEach(() => cleanup());

const timeline = (topic: string): RecordedTimeline => recording.topics[topic].timeline!;
const key = (r: HTMLElement) => `${r.dataset.partition}:${r.dataset.offset}`;

describe('the recorded timeline', () => {
  it('is cut into pages by the mock as the engine cut them', async () => {
    const b = mock().backend();
    for (const topic of ['orders', 'chat', 'events', 'sensors']) {
      for (const c of timeline(topic).checks) {
        // A place is found by time in the engine (its page says where it landed); the mock cuts there.
        const anchor = c.anchor?.at === 'index' && c.answer.status === 'ok' ? { at: 'at' as const, offsets: c.answer.data.begin } : c.anchor!;
        const got = c.dir === 'before' ? await b.timelineBefore(topic, null, c.before ?? null, c.limit) : await b.timelineAfter(topic, null, anchor, c.limit);
        // The engine's page from the start begins at 0 in a partition whose first file is gone
        // (offset 10 in sensors P1): the same cut as its first offset.
        const norm = (r: typeof c.answer) =>
          {
          if (r.status !== 'ok') return r;
          const up = (cut: string[]) => cut.map((o, i) => (BigInt(o) < BigInt(r.data.first[i]) ? r.data.first[i] : o));
          return { ...r, data: { ...r.data, begin: up(r.data.begin), end: up(r.data.end) } };
        };
        expect(norm(got), `${topic} ${c.dir} ${JSON.stringify(c.anchor ?? c.before)}`).toEqual(norm(c.answer));
      }
    }
  });
});

describe('all partitions as one timeline', () => {
  it('starts at the oldest message of the topic, ordered by time across partitions, and End shows the newest', async () => {
    const detail = await describe_('orders');
    const { getByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    const order = timeline('orders').order.map(([p, o]) => `${p}:${o}`);
    expect(rows().map(key)).toEqual(order.slice(0, rows().length));
    expect(new Set(rows().map((r) => r.dataset.partition)).size).toBeGreaterThan(2);
    expect(getByTestId('timeline-legend').textContent).toMatch(/one timeline, ordered by timestamp · 5 partitions/);
    expect(getByTestId('row-range').textContent).toMatch(/^1–\d+ of 400 on the timeline$/);
    await fireEvent.keyDown(document.body, { key: 'End' });
    await until(() => rows().length > 0 && key(rows()[rows().length - 1]) === order[order.length - 1], 'the newest message');
    expect(rows().map(key)).toEqual(order.slice(order.length - rows().length));
    expect(mock().calls.some((c) => c[0] === 'timelineAfter' && (c[3] as { at: string }).at === 'at')).toBe(true);
    // Scrolling back pages older rows in by the page's begin cut.
    await fireEvent.keyDown(document.body, { key: 'Home' });
    await until(() => rows().length > 0 && key(rows()[0]) === order[0], 'the oldest again');
  });

  it('jumps to a time across the topic', async () => {
    const detail = await describe_('orders');
    const { getByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    const [t] = timeline('orders').times[20];
    await fireEvent.input(getByTestId('jump-time-input'), { target: { value: String(t) } });
    await fireEvent.click(getByTestId('jump-time-go'));
    const anchor = mock().calls.find((c) => c[0] === 'timelineAfter' && (c[3] as { at: string }).at === 'time');
    expect(anchor?.[3]).toEqual({ at: 'time', unix: t });
    const want = timeline('orders').order[200];
    await until(() => document.querySelector<HTMLElement>('[aria-selected=true] [data-testid=message-row]')?.dataset.offset === want[1], 'the row at that time');
    expect(document.querySelector<HTMLElement>('[aria-selected=true] [data-testid=message-row]')!.dataset.partition).toBe(String(want[0]));
    expect(mock().calls.some((c) => c[0] === 'offsetAtTime')).toBe(false);
  });

  it('a jump to the same time again still fills the rows above the one it selects', async () => {
    const detail = await describe_('orders');
    const { getByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    // A full page from there (the place is more than a page from the end).
    const [t] = timeline('orders').times[5];
    const want = timeline('orders').order[50];
    const selectedRow = () => document.querySelector<HTMLElement>('[aria-selected=true] [data-testid=message-row]');
    // From the End, its pages still coming in when the first jump is asked for.
    await fireEvent.keyDown(document.body, { key: 'End' });
    for (let i = 0; i < 2; i++) {
      await fireEvent.input(getByTestId('jump-time-input'), { target: { value: String(t) } });
      await fireEvent.click(getByTestId('jump-time-go'));
      // The jump's page is read and the window replaced by it before anything is looked at.
      await settle();
      // The page read at the time starts at the row selected: the rows above it come by growing the window.
      await until(() => selectedRow()?.dataset.offset === want[1] && !document.querySelector('[data-testid="message-row-pending"]'), `jump ${i + 1}: the row at that time, none pending above it`);
    }
    const order = timeline('orders').order.map(([p, o]) => `${p}:${o}`);
    const shown = rows().map(key);
    const at = order.indexOf(shown[0]);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(50);
    expect(shown).toEqual(order.slice(at, at + shown.length));
    await settle();
    expect(document.querySelectorAll('[data-testid="message-row-pending"]')).toHaveLength(0);
    expect(document.querySelector('[data-testid="messages-error"]')).toBeNull();
  });

  it('follows the tail of every partition, interleaved, keeping the view at the bottom', async () => {
    const detail = await describe_('chat');
    const view = render(MessagesTab, { topic: 'chat', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    await fireEvent.click(view.getByTestId('follow-toggle'));
    await settle();
    const m = mock();
    const sent = [m.appendNow('chat', 'ada', { text: 'tail one' }, 0), m.appendNow('chat', 'ken', { text: 'tail two' }, 1), m.appendNow('chat', 'ada', { text: 'tail three' }, 0)];
    await view.rerender({ detail: await describe_('chat') });
    await until(() => rows().some((r) => r.textContent!.includes('tail three')), 'the new rows');
    const last = rows().slice(-3);
    expect(last.map(key)).toEqual(sent.map((s) => `${s.partition}:${s.offset}`));
    expect(last.map((r) => r.textContent!.match(/tail \w+/)![0])).toEqual(['tail one', 'tail two', 'tail three']);
    expect(view.getByTestId('row-range').textContent).toMatch(/–63 of 63 on the timeline$/);
  });

  it('not following, new rows leave the view where it is and count as new', async () => {
    const detail = await describe_('chat');
    const view = render(MessagesTab, { topic: 'chat', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    const before = rows().map(key);
    mock().appendNow('chat', 'ada', { text: 'later' }, 1);
    await view.rerender({ detail: await describe_('chat') });
    await settle();
    expect(rows().map(key)).toEqual(before);
    expect(view.getByTestId('row-range').textContent).toMatch(/of 61 on the timeline$/);
  });

  it('a time range bounds the timeline it shows', async () => {
    const detail = await describe_('orders');
    const { getByTestId } = render(MessagesTab, { topic: 'orders', detail, tz: 'utc' });
    await until(() => rows().length > 0, 'rows');
    const times = timeline('orders').times;
    const [from] = times[10];
    // Just before the 120th message (the mock answers a time with the next one it has).
    const to = times[12][0] - 1;
    await fireEvent.input(getByTestId('range-from'), { target: { value: new Date(from * 1000).toISOString() } });
    await fireEvent.input(getByTestId('range-to'), { target: { value: new Date(to * 1000).toISOString() } });
    await fireEvent.click(getByTestId('range-apply'));
    const order = timeline('orders').order.map(([p, o]) => `${p}:${o}`);
    await until(() => rows().length > 0 && key(rows()[0]) === order[100], 'the range start');
    await until(() => /of 20 on the timeline$/.test(getByTestId('row-range').textContent!), 'the range length');
  });
});
