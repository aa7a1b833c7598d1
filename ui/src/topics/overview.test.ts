import { describe, expect, it, vi } from 'vitest';
vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());
import type { TopicSummary } from '../backend/api';
import { isEmptyTopic, nextOrder, overviewRows, type OverviewRow } from './overview';

function topic(name: string, messages: string, bytes: string, last: number | null, partitions = 1, error: string | null = null): TopicSummary {
  return { name, key_type: 'u16', partitions, message_types: [], max_message_bytes: null, messages, bytes, last_write: last, last_message: last, error };
}
const rows: OverviewRow[] = [
  { topic: topic('orders', '900', '90000', 300, 4), rate: 12 },
  { topic: topic('audit', '0', '0', null), rate: 0 },
  // Beyond 2^53: compared exactly, never as a JS number.
  { topic: topic('huge', '18446744073709551615', '9007199254740993', 100, 2), rate: 0.5 },
  { topic: topic('huge2', '18446744073709551614', '9007199254740992', 200, 2), rate: 0 },
  { topic: topic('broken', '0', '0', null, 0, 'cannot read its config'), rate: 0 },
];
const names = (r: OverviewRow[]) => r.map((x) => x.topic.name);

describe('the topics overview', () => {
  it('sorts by messages and size exactly above 2^53, largest first', () => {
    expect(names(overviewRows(rows, { by: 'messages', desc: true }, '', false))).toEqual(['huge', 'huge2', 'orders', 'audit', 'broken']);
    expect(names(overviewRows(rows, { by: 'bytes', desc: true }, '', false))).toEqual(['huge', 'huge2', 'orders', 'audit', 'broken']);
  });

  it('sorts by last message (never-written last when largest first), by rate, by partitions, by name', () => {
    expect(names(overviewRows(rows, { by: 'last', desc: true }, '', false))).toEqual(['orders', 'huge2', 'huge', 'audit', 'broken']);
    expect(names(overviewRows(rows, { by: 'rate', desc: true }, '', false))).toEqual(['orders', 'huge', 'audit', 'broken', 'huge2']);
    expect(names(overviewRows(rows, { by: 'partitions', desc: false }, '', false))).toEqual(['broken', 'audit', 'huge', 'huge2', 'orders']);
    expect(names(overviewRows(rows, { by: 'name', desc: false }, '', false))).toEqual(['audit', 'broken', 'huge', 'huge2', 'orders']);
  });

  it('hides empty topics on request, but never one whose config cannot be read', () => {
    expect(isEmptyTopic(rows[1].topic)).toBe(true);
    expect(isEmptyTopic(rows[4].topic)).toBe(false);
    expect(names(overviewRows(rows, { by: 'name', desc: false }, '', true))).toEqual(['broken', 'huge', 'huge2', 'orders']);
  });

  it('filters by name in any case', () => {
    expect(names(overviewRows(rows, { by: 'name', desc: false }, ' HUG ', false))).toEqual(['huge', 'huge2']);
  });

  it('a header clicked sorts figures largest first, names A-Z, and the other way when clicked again', () => {
    expect(nextOrder({ by: 'name', desc: false }, 'messages')).toEqual({ by: 'messages', desc: true });
    expect(nextOrder({ by: 'messages', desc: true }, 'messages')).toEqual({ by: 'messages', desc: false });
    expect(nextOrder({ by: 'messages', desc: true }, 'name')).toEqual({ by: 'name', desc: false });
  });
});

describe('the topics overview in the app', () => {
  // The app with the mock backend (the recorded answers of the real one).
  it('lists every topic of the store while none is picked, sorts, hides empty ones, and opens a topic', async () => {
    const { cleanup, fireEvent, render } = await import('@testing-library/svelte');
    const { freshLaunch, until } = await import('../../tests/helpers');
    const { app } = await import('../app/app.svelte');
    const App = (await import('../app/App.svelte')).default;
    freshLaunch();
    try {
      const r = render(App);
      await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
      await fireEvent.click(r.getByTestId('open-demo'));
      await until(() => !!document.querySelector('[data-testid=topics-overview]'), 'the overview');
      const topics = app.info?.topics ?? [];
      const listed = () => [...document.querySelectorAll('[data-testid=overview-name]')].map((e) => e.textContent);
      await until(() => listed().length === topics.length, 'every topic listed');
      // Largest first by messages (the default order).
      const byMessages = [...topics].sort((a, b) => (BigInt(b.messages) > BigInt(a.messages) ? 1 : BigInt(b.messages) < BigInt(a.messages) ? -1 : a.name < b.name ? -1 : 1));
      expect(listed()).toEqual(byMessages.map((t) => t.name));
      await fireEvent.click(r.getByTestId('overview-sort-name'));
      expect(listed()).toEqual(topics.map((t) => t.name).sort());
      await fireEvent.input(r.getByTestId('overview-filter'), { target: { value: topics[0].name } });
      expect(listed()).toContain(topics[0].name);
      expect(listed().every((n) => n?.toLowerCase().includes(topics[0].name.toLowerCase()))).toBe(true);
      await fireEvent.input(r.getByTestId('overview-filter'), { target: { value: '' } });
      await fireEvent.click(r.getByTestId('overview-hide-empty'));
      expect(listed()).toEqual(topics.filter((t) => t.error !== null || t.messages !== '0').map((t) => t.name).sort());
      await fireEvent.click(r.getByTestId('overview-hide-empty'));
      expect(listed().length).toBe(topics.length);
      const name = listed()[0]!;
      await fireEvent.click(document.querySelector('[data-testid=overview-row] button')!);
      expect(app.topic).toBe(name);
      await until(() => !!document.querySelector('[data-testid=tab-messages]'), 'the topic shown');
    } finally {
      cleanup();
    }
  });
});
