// How messages show: typed messages decoded (ü and 🚀, never \u escapes), and the detail pane
// (its width, the hex view, a long single line).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import Sidebar from '../store/Sidebar.svelte';
import PartitionsTab from '../topics/PartitionsTab.svelte';
import MessagesTab from './MessagesTab.svelte';
import DetailPane from './DetailPane.svelte';
import TimeRange from '../search/TimeRange.svelte';
import { app } from '../app/app.svelte';
import { hexDump, hexLineChars, parseTime } from '../shared/format';
import { nextSort, sortPartitions, summarize } from '../topics/partitions';
import { clampDetail, MIN_DETAIL } from './paneWidth';
import { rowWindow } from '../shared/virtual';
import type { GroupSummary, PartitionDetail, Row, TopicDetail, TopicSummary } from '../backend';
import { cpuMs, describe_, mock, recordedMessage, rows, until } from '../../tests/helpers';
import { NOW, bigStore, topic } from '../../tests/stores';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  localStorage.clear();
  mock().seed();
  app.now = NOW;
  app.topic = null;
  app.group = null;
});
afterEach(() => cleanup());

describe('typed messages, decoded', () => {
  it('shows ü and 🚀 in the table and in Fields, never \\u escapes', async () => {
    const detail = await describe_('typed');
    const { getByTestId } = render(MessagesTab, { topic: 'typed', detail, tz: 'utc', link: { partition: 0 } });
    await until(() => rows().length > 0, 'rows');
    const table = rows().map((r) => r.textContent).join('\n');
    expect(table).toContain('ünïcödé');
    expect(table).not.toMatch(/\\u00fc|\\ud83d/);
    // With the year.
    expect(rows()[0].textContent).toMatch(/\b20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\b/);
    cleanup();
    const m: Row = { row: 'message', ...recordedMessage('typed', 0, '1') };
    expect(m.row === 'message' && m.fields_json).toContain('\\u00fc');
    const pane = render(DetailPane, { row: m, tz: 'utc', view: 'fields' });
    const fields = pane.getByTestId('detail-fields').textContent!;
    expect(fields).toContain('"ünïcödé"');
    expect(fields).not.toContain('\\u00fc');
    void getByTestId;
  });
});

describe('the detail pane', () => {
  it('resizes from its edge with the keyboard, within bounds, and remembers the width', async () => {
    const m: Row = { row: 'message', ...recordedMessage('typed', 0, '1') };
    const { getByTestId, component } = render(DetailPane, { row: m, tz: 'utc' });
    const grip = getByTestId('detail-grip');
    const before = Number(grip.getAttribute('aria-valuenow'));
    await fireEvent.keyDown(grip, { key: 'ArrowLeft' });
    expect(Number(grip.getAttribute('aria-valuenow'))).toBe(before + 20);
    expect(localStorage.getItem('twainmq.detailWidth')).toBe(String(before + 20));
    for (let i = 0; i < 100; i++) await fireEvent.keyDown(grip, { key: 'ArrowRight', shiftKey: true });
    expect(Number(grip.getAttribute('aria-valuenow'))).toBe(MIN_DETAIL);
    expect(clampDetail(5000, 1000)).toBe(640);
    void component;
  });

  it('fits the hex view: 8 bytes a line when 16 would scroll, ASCII aligned on the last line', () => {
    const bytes = new TextEncoder().encode('Hello, hex view!!abc');
    const wide = hexDump(bytes, 65536, 16);
    expect(wide.map((l) => l.offset)).toEqual(['0000', '0010']);
    expect(wide[1].hex.length).toBe(wide[0].hex.length);
    expect(wide[1].ascii).toBe('!abc'.padEnd(16, ' '));
    const narrow = hexDump(bytes, 65536, 8);
    expect(narrow.map((l) => l.offset)).toEqual(['0000', '0008', '0010']);
    expect(narrow[0].hex).toBe('48 65 6c 6c 6f 2c 20 68');
    // 72 characters a 16-byte line: at 12px mono (7.2px) 518px, in a 560px pane with padding.
    expect(hexLineChars(16)).toBe(72);
    expect(hexLineChars(8)).toBe(39);
  });

  it('stays responsive with a 4 KiB single-line message', () => {
    const m: Row = { row: 'message', ...recordedMessage('typed', 0, '1') };
    const long: Row = { ...m, row: 'message', kind: 'str', text: '{"k":"' + 'x'.repeat(4080) + '"}', class: null, type_id: null, fields_json: null, fields_pretty: null };
    for (const view of ['text', 'json', 'hex'] as const) {
      // CPU time: what rendering costs, not how long a loaded machine took to give it the CPU.
      const t0 = cpuMs();
      const r = render(DetailPane, { row: long, tz: 'utc', view });
      const ms = cpuMs() - t0;
      expect(ms).toBeLessThan(500);
      expect(r.getByTestId('detail-pane')).toBeTruthy();
      cleanup();
    }
  });
});
