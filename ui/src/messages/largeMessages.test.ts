import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import MessagesTab from './MessagesTab.svelte';
import DetailPane from './DetailPane.svelte';
import { describe_, mock, recordedMessage, rows, until } from '../../tests/helpers';
import type { Row } from '../backend';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().seed();
  mock().calls = [];
});
afterEach(() => cleanup());

const cell = (offset: string, id: string) => rows().find((r) => r.dataset.offset === offset)?.querySelector(`[data-testid=${id}]`)?.textContent;

describe('a topic of large messages and free keys', () => {
  it('shows each key with its kind, each payload with its kind and size, and a large message part rows', async () => {
    const detail = await describe_('blobs');
    render(MessagesTab, { topic: 'blobs', detail, tz: 'utc' });
    await until(() => rows().length > 5, 'rows');
    expect(cell('0', 'message-key')).toBe('user-42');
    expect(cell('1', 'message-key')).toBe('0xdeadbeef');
    expect(cell('2', 'message-key')).toBe('null');
    expect(cell('3', 'message-key')).toBe('""');
    expect([cell('0', 'message-kind'), cell('1', 'message-kind'), cell('2', 'message-kind')]).toEqual(['JSON', 'bytes', 'text']);
    expect(cell('1', 'message-size')).toBe('18 B');
    const part = rows().find((r) => r.dataset.offset === '4')!;
    expect(part.dataset.kind).toBe('part');
    expect(part.textContent).toContain('shown whole at its last part, #33');
  });

  it('opens a large message at once with its first bytes, shows all of it on request, and saves it to a file', async () => {
    const large = recordedMessage('blobs', 0, '33');
    expect(large.truncated).toBe(true);
    const detail = await describe_('blobs');
    const { getByTestId, queryByTestId } = render(DetailPane, { row: { row: 'message', ...large } as Row, topic: 'blobs', incarnation: detail.incarnation, tz: 'utc', onreproduce: () => {} });
    // Its row holds only the first bytes: never offered to be sent again as if whole.
    expect(queryByTestId('detail-reproduce')).toBeNull();
    await until(() => /first 64/.test(queryByTestId('detail-large-shown')?.textContent ?? ''), 'preview');
    expect(getByTestId('detail-large-shown').textContent).toMatch(/^Showing the first 64\.0 KB of 184\.\d KB/);
    expect(new TextEncoder().encode(getByTestId('detail-text').textContent!).length).toBe(65536);
    await fireEvent.click(getByTestId('detail-show-all'));
    await until(() => getByTestId('detail-large').textContent!.includes('All'), 'all of it');
    const text = getByTestId('detail-text').textContent!;
    expect(new TextEncoder().encode(text).length).toBe(large.size);
    expect(text.startsWith('line 0000:')).toBe(true);
    expect(text.trimEnd().split('\n').length).toBe(3000);
    // Save: the native dialog's path, the whole payload written there.
    mock().pickFileResult = '/home/you/Downloads/report.txt';
    await fireEvent.click(getByTestId('detail-save'));
    await until(() => !!queryByTestId('detail-save-note'), 'saved');
    expect(getByTestId('detail-save-note').textContent).toMatch(/^Saved 184\.\d KB to \/home\/you\/Downloads\/report.txt/);
    expect(mock().savedPayloads).toEqual(['/home/you/Downloads/report.txt']);
  });

  it('opens a JSON payload as a tree and bytes as hex, with no tab picked', async () => {
    const json = render(DetailPane, { row: { row: 'message', ...recordedMessage('blobs', 0, '0') } as Row, tz: 'utc' });
    expect(json.getByTestId('detail-tab-json').getAttribute('aria-selected')).toBe('true');
    expect(json.getAllByTestId('json-node').length).toBeGreaterThan(3);
    cleanup();
    const bytes = render(DetailPane, { row: { row: 'message', ...recordedMessage('blobs', 0, '1') } as Row, tz: 'utc' });
    expect(bytes.getByTestId('detail-tab-hex').getAttribute('aria-selected')).toBe('true');
    expect(bytes.getByTestId('detail-hex').textContent).toContain('89 50 4e 47');
    expect(bytes.getByTestId('detail-key').textContent).toContain('0xdeadbeef (bytes, as hex)');
    cleanup();
    const plain = render(DetailPane, { row: { row: 'message', ...recordedMessage('blobs', 0, '2') } as Row, tz: 'utc' });
    expect(plain.getByTestId('detail-tab-text').getAttribute('aria-selected')).toBe('true');
    expect(plain.getByTestId('detail-key').textContent).toContain('null (no key (null))');
  });
});
