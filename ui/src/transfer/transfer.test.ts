import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import ExportDialog from './ExportDialog.svelte';
import ImportDialog from './ImportDialog.svelte';
import RetentionPanel from './RetentionPanel.svelte';
import { retentionSummary } from '../app/app.svelte';
import { parseRetention, formOf } from './retention';
import type { Scope } from './scopes';
import type { ImportRequest } from '../backend';
import { describe_, mock, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule({ searchDelay: 5 }));
beforeEach(() => {
  mock().seed();
  mock().calls = [];
});
afterEach(() => cleanup());

const EXPORTS = '/home/you/exports';
const whole: Scope[] = [{ id: 'all', label: 'The whole topic', count: '240', selection: { kind: 'all', partitions: null } }];
const has = (id: string) => () => !!document.querySelector(`[data-testid=${id}]`);
const text = (id: string) => document.querySelector(`[data-testid=${id}]`)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

describe('export', () => {
  it('exports the scope picked to the path in the field, with progress, and says how many went where', async () => {
    const { getByTestId } = render(ExportDialog, { topic: 'events', scopes: whole, onclose: () => {} });
    expect((getByTestId('export-submit') as HTMLButtonElement).disabled).toBe(true);
    // "Choose…" fills the field with what the save dialog answered.
    mock().pickFileResult = `${EXPORTS}/events.jsonl`;
    await fireEvent.click(getByTestId('export-path-choose'));
    await until(() => (getByTestId('export-path-input') as HTMLInputElement).value === `${EXPORTS}/events.jsonl`, 'the path chosen');
    expect(mock().calls.find((c) => c[0] === 'pickSaveFile')).toEqual(['pickSaveFile', 'Export events', 'events.jsonl', ['jsonl']]);
    await fireEvent.click(getByTestId('export-submit'));
    await until(has('transfer-progress'), 'progress');
    await until(has('export-result'), 'the end');
    expect(text('export-result')).toBe(`Exported 240 messages to ${EXPORTS}/events.jsonl.`);
    const call = mock().calls.find((c) => c[0] === 'exportMessages')!;
    // The native save dialog asked about replacing the file itself: this export does not ask again.
    expect(call[1]).toEqual({ topic: 'events', selection: { kind: 'all', partitions: null }, format: 'jsonl', path: `${EXPORTS}/events.jsonl`, store_topic: null, overwrite: true });
  });

  it('clears a refusal once the form it judged has changed', async () => {
    const { getByTestId } = render(ExportDialog, { topic: 'events', scopes: whole, onclose: () => {} });
    // A refusal only the backend can give (the path is a folder): shown, then gone once the path changes.
    await fireEvent.input(getByTestId('export-path-input'), { target: { value: EXPORTS } });
    await fireEvent.click(getByTestId('export-submit'));
    await until(has('export-error'), 'the refusal');
    await fireEvent.input(getByTestId('export-path-input'), { target: { value: `${EXPORTS}/events.jsonl` } });
    await until(() => !has('export-error')(), 'the refusal cleared');
    // A name a new topic cannot have is said before anything is sent, and goes with the name.
    await fireEvent.click(getByTestId('export-format-store'));
    await fireEvent.input(getByTestId('export-path-input'), { target: { value: '/home/you/new-store' } });
    await fireEvent.input(getByTestId('export-store-topic'), { target: { value: 'con' } });
    await until(has('export-store-topic-problem'), 'the name problem');
    expect((getByTestId('export-submit') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(getByTestId('export-store-topic'), { target: { value: 'events_copy' } });
    await until(() => !has('export-store-topic-problem')(), 'the name problem cleared');
  });

  it('never replaces a file unasked: "Export again" and a format switched after an export ask first', async () => {
    const { getByTestId } = render(ExportDialog, { topic: 'events', scopes: whole, onclose: () => {} });
    await fireEvent.input(getByTestId('export-path-input'), { target: { value: `${EXPORTS}/events.jsonl` } });
    await fireEvent.click(getByTestId('export-submit'));
    await until(has('export-result'), 'the first export');
    expect(mock().calls.filter((c) => c[0] === 'exportMessages').map((c) => (c[1] as { overwrite: boolean }).overwrite)).toEqual([false]);
    // Export again: the file is there now, so it is refused, nothing written, and the dialog asks.
    await fireEvent.click(getByTestId('export-submit'));
    await until(has('export-exists'), 'the question');
    expect(text('export-exists')).toBe(`${EXPORTS}/events.jsonl is already there. Nothing was written. Replace it with this export, or choose another name? Keep it Replace events.jsonl`);
    expect((getByTestId('export-submit') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(getByTestId('export-replace'));
    await until(has('export-result'), 'replaced');
    expect(mock().calls.filter((c) => c[0] === 'exportMessages').map((c) => (c[1] as { overwrite: boolean }).overwrite)).toEqual([false, false, true]);
    // Switching to CSV: the extension follows the format, so hits.jsonl is not written as CSV.
    await fireEvent.click(document.querySelector<HTMLInputElement>('input[type=radio][value=csv]')!);
    await until(() => (getByTestId('export-path-input') as HTMLInputElement).value === `${EXPORTS}/events.csv`, 'the .csv name');
  });

  it('says clearly when the path is a folder', async () => {
    const { getByTestId } = render(ExportDialog, { topic: 'events', scopes: whole, onclose: () => {} });
    await fireEvent.input(getByTestId('export-path-input'), { target: { value: EXPORTS } });
    await fireEvent.click(getByTestId('export-submit'));
    await until(has('export-error'), 'the error');
    expect(text('export-error')).toContain('cannot export to /home/you/exports: it is a folder: give a file name');
  });
});

describe('export as a new store', () => {
  it('does not prefill a name a new topic cannot have (con), and says why before submit', async () => {
    const { getByTestId } = render(ExportDialog, { topic: 'con', scopes: whole, onclose: () => {} });
    await fireEvent.click(getByTestId('export-format-store'));
    expect((getByTestId('export-store-topic') as HTMLInputElement).value).toBe('');
    expect(text('export-store-topic-hint')).toContain('con cannot be a new topic\'s name (CON is a device name on Windows');
    await fireEvent.input(getByTestId('export-store-topic'), { target: { value: 'Aux.log' } });
    expect(text('export-store-topic-problem')).toContain('AUX is a device name on Windows');
    await fireEvent.input(getByTestId('export-store-topic'), { target: { value: 'con-copy' } });
    expect(document.querySelector('[data-testid=export-store-topic-problem]')).toBeNull();
    // A name any topic can have is kept as it was.
    cleanup();
    const again = render(ExportDialog, { topic: 'events', scopes: whole, onclose: () => {} });
    await fireEvent.click(again.getByTestId('export-format-store'));
    expect((again.getByTestId('export-store-topic') as HTMLInputElement).value).toBe('events');
  });
});

describe('import', () => {
  it('checks the file first (count and partitions), then imports it and says what landed', async () => {
    const detail = await describe_('empty');
    const said: string[] = [];
    const { getByTestId } = render(ImportDialog, { topic: 'empty', detail, onclose: () => {}, ondone: (t: string) => said.push(t) });
    await fireEvent.input(getByTestId('import-path-input'), { target: { value: `${EXPORTS}/events.jsonl` } });
    expect((getByTestId('import-submit') as HTMLButtonElement).disabled, 'no write before a dry run').toBe(true);
    await fireEvent.click(getByTestId('import-check'));
    await until(has('import-report'), 'the dry run');
    expect(text('import-report-count')).toBe('240');
    expect([...document.querySelectorAll('[data-testid=import-report] .part')].map((e) => e.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['0 74', '1 78', '2 88']);
    expect(text('import-no-bad')).toBe('No bad lines.');
    expect(mock().calls.find((c) => c[0] === 'importFile')![1]).toMatchObject({ dry_run: true });
    // Changing an option asks for a new dry run.
    await fireEvent.click(getByTestId('import-skip-bad'));
    expect((getByTestId('import-submit') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(getByTestId('import-skip-bad'));
    expect((getByTestId('import-submit') as HTMLButtonElement).textContent).toBe('Import 240 messages');
    await fireEvent.click(getByTestId('import-submit'));
    await until(has('import-result'), 'the import');
    expect(text('import-result')).toBe('Imported 240 messages into empty.');
    expect(said).toEqual(['Imported 240 messages into empty']);
    // One dry run allows one import: the button no longer offers the same 240 again.
    const again = getByTestId('import-submit') as HTMLButtonElement;
    expect(again.textContent).toBe('Imported');
    expect(again.disabled).toBe(true);
    await fireEvent.submit(again.closest('form')!);
    expect(mock().calls.filter((c) => c[0] === 'importFile' && !(c[1] as { dry_run: boolean }).dry_run)).toHaveLength(1);
    // Checking the file again allows importing it again, knowingly.
    await fireEvent.click(getByTestId('import-check'));
    await until(() => (getByTestId('import-submit') as HTMLButtonElement).textContent === 'Import 240 messages', 'the import offered again');
  });

  it('names the first bad line in the dry run, and a stopped import says how many landed', async () => {
    const detail = await describe_('empty');
    const { getByTestId } = render(ImportDialog, { topic: 'empty', detail, onclose: () => {} });
    await fireEvent.input(getByTestId('import-path-input'), { target: { value: `${EXPORTS}/bad.jsonl` } });
    await fireEvent.click(getByTestId('import-check'));
    await until(has('import-first-bad'), 'the bad line');
    expect(text('import-first-bad')).toContain('1 bad line; the first, line 2: the key "x" is a string, but the topic has u16 (integer) keys');
    // Said before: what is written, and where it stops (not "Import 2 messages").
    expect(text('import-stops-at')).toContain('Importing writes the 1 message before line 2 and stops there');
    expect(text('import-submit')).toBe('Import 1 message, stop at line 2');
    await fireEvent.click(getByTestId('import-submit'));
    await until(has('import-error'), 'the stop');
    expect(text('import-error')).toMatch(/^import stopped at input line 2: line 2: .*: give it as a JSON number\. 1 message written: those of every line before it, and nothing from it on: resume from line 2\. 1 message is in empty\.$/);
    expect(text('import-resume-note')).toContain('go on from line 2');
  });

  it('retries a stopped import from where it stopped, never writing a line twice', async () => {
    const detail = await describe_('empty');
    const { getByTestId } = render(ImportDialog, { topic: 'empty', detail, onclose: () => {} });
    await fireEvent.input(getByTestId('import-path-input'), { target: { value: `${EXPORTS}/bad.jsonl` } });
    await fireEvent.click(getByTestId('import-check'));
    await until(has('import-first-bad'), 'the bad line');
    await fireEvent.click(getByTestId('import-submit'));
    await until(has('import-error'), 'the stop');
    // Retried with "skip bad lines": the dry run and the import go on from line 2.
    await fireEvent.click(getByTestId('import-skip-bad'));
    await fireEvent.click(getByTestId('import-check'));
    await until(has('import-passed-over'), 'the resumed dry run');
    expect(text('import-passed-over')).toContain('1 line it wrote is passed over');
    expect(text('import-submit')).toBe('Import 1 message');
    await fireEvent.click(getByTestId('import-submit'));
    await until(has('import-result'), 'the import');
    expect(text('import-result')).toContain('Imported 1 message into empty');
    const writes = mock().calls.filter((c) => c[0] === 'importFile' && !(c[1] as ImportRequest).dry_run).map((c) => (c[1] as ImportRequest).resume);
    expect(writes).toEqual([null, { line: '2', landed_after: [] }]);
  });
});

describe('retention', () => {
  it('previews a setting: what goes, which group keeps files, and what forcing costs', async () => {
    const detail = await describe_('events');
    const { getByTestId } = render(RetentionPanel, { topic: 'events', detail, tz: 'utc' });
    await until(() => text('retention-current').includes('none'), 'the saved setting');
    await fireEvent.input(getByTestId('retention-days'), { target: { value: '1' } });
    await until(has('retention-plan-totals'), 'the preview');
    expect(text('retention-plan-totals')).toMatch(/^Would delete 2 files: 45 messages, 1\.7 KB\.$/);
    expect(text('retention-plan-holding')).toContain('workers has not consumed yet');
    expect(document.querySelector('[data-testid=retention-plan-losing]')).toBeNull();
    expect(text('retention-plan-compat')).toContain('0.2.3 readers count offsets from the first file left');
    await fireEvent.click(getByTestId('retention-force'));
    await until(has('retention-plan-losing'), 'the forced preview');
    expect(text('retention-plan-losing')).toBe('Consumer group workers would lose messages it has not consumed yet.');
    // Deleting asks first, and names the group that loses messages.
    await fireEvent.click(getByTestId('retention-apply'));
    expect(text('retention-confirm')).toMatch(/delete 12 files of events now: 240 messages, 8\.5 KB\. This cannot be undone\. Consumer group workers loses messages not consumed yet\./);
    expect(mock().calls.some((c) => c[0] === 'setRetention' || c[0] === 'applyRetention'), 'nothing saved or deleted yet').toBe(false);
  });

  it('saves a setting, and refuses a zero', async () => {
    const detail = await describe_('events');
    const { getByTestId } = render(RetentionPanel, { topic: 'events', detail, tz: 'utc' });
    await until(() => text('retention-current') !== '', 'loaded');
    await fireEvent.input(getByTestId('retention-days'), { target: { value: '0' } });
    expect(text('retention-problem')).toBe('keep at least 1 day (or leave days empty)');
    expect((getByTestId('retention-save') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(getByTestId('retention-days'), { target: { value: '7' } });
    await fireEvent.click(getByTestId('retention-save'));
    await until(has('retention-saved'), 'saved');
    expect(mock().calls.find((c) => c[0] === 'setRetention')).toEqual(['setRetention', 'events', { days: '7', bytes_per_partition: null }]);
    expect(text('retention-current')).toBe('Saved setting: 7 days.');
  });

  it('"Save and delete now" says what was deleted, not "Nothing was deleted now"', async () => {
    const detail = await describe_('events');
    const { getByTestId } = render(RetentionPanel, { topic: 'events', detail, tz: 'utc' });
    await until(() => text('retention-current') !== '', 'loaded');
    await fireEvent.input(getByTestId('retention-days'), { target: { value: '1' } });
    await until(has('retention-plan-totals'), 'the preview');
    await fireEvent.click(getByTestId('retention-apply'));
    expect(text('retention-confirm-delete')).toBe('Delete 2 files');
    await fireEvent.click(getByTestId('retention-confirm-delete'));
    await until(has('retention-done-totals'), 'the deletion');
    expect(text('retention-done-totals')).toMatch(/^Deleted 2 files: 45 messages/);
    expect(text('retention-saved')).toMatch(/^Saved: 1 day\./);
    expect(text('retention-saved')).not.toContain('Nothing was deleted');
    expect(mock().calls.filter((c) => c[0] === 'applyRetention')).toEqual([['applyRetention', 'events', false]]);
  });

  it('purges only after a preview and the topic name typed', async () => {
    const detail = await describe_('tiny');
    const { getByTestId } = render(RetentionPanel, { topic: 'tiny', detail, tz: 'utc' });
    await fireEvent.click(getByTestId('purge-all'));
    await fireEvent.click(getByTestId('purge-preview'));
    await until(has('purge-plan-totals'), 'the purge preview');
    expect(text('purge-plan-totals')).toMatch(/^Would delete 3 files: 11 messages/);
    expect(text('purge-plan-compat')).toContain('Stop TwainMQ 0.2.3 producers of this topic first');
    const submit = getByTestId('purge-submit') as HTMLButtonElement;
    await fireEvent.input(getByTestId('purge-confirm-input'), { target: { value: 'tin' } });
    expect(submit.disabled).toBe(true);
    await fireEvent.input(getByTestId('purge-confirm-input'), { target: { value: 'tiny' } });
    expect(submit.disabled).toBe(false);
  });

  it('reads and writes sizes exactly, and says what the app removed on its own', () => {
    expect(parseRetention({ days: '', size: '16384', unit: 'TB' })).toEqual({ ok: true, value: { days: null, bytes_per_partition: '18014398509481984' } });
    expect(parseRetention({ days: '', size: '', unit: 'MB' })).toEqual({ ok: true, value: null });
    expect(formOf({ days: '3', bytes_per_partition: '536870912' })).toEqual({ days: '3', size: '512', unit: 'MB' });
    const plan = { topic: 'events', files_gone: 2, messages_gone: '1234567', groups_holding: ['workers'] };
    expect(retentionSummary([plan])).toBe('Retention removed 2 old files (1,234,567 messages) from events; files not yet consumed by workers were kept');
  });
});

describe('re-produce', () => {
  it('fills the Produce tab with the message picked, editable, typed fields and class kept', async () => {
    const { default: ProduceTab } = await import('../messages/ProduceTab.svelte');
    const { app } = await import('../app/app.svelte');
    const detail = await describe_('orders');
    const { getByTestId } = render(ProduceTab, { topic: 'orders', detail, tz: 'utc' });
    app.produceDraft = { topic: 'orders', key: '4711', kind: 'json', body: '{\n  "id": 98765432109876543210\n}', class: 'Refund' };
    await until(has('produce-draft-note'), 'the form filled');
    expect((getByTestId('produce-key') as HTMLInputElement).value).toBe('4711');
    expect((getByTestId('produce-kind') as HTMLSelectElement).value).toBe('json');
    expect((getByTestId('produce-body') as HTMLTextAreaElement).value).toBe('{\n  "id": 98765432109876543210\n}');
    expect(app.produceDraft).toBeNull();
    expect(mock().calls.some((c) => c[0] === 'produce'), 'nothing is sent until the person sends it').toBe(false);
  });
});

describe("the app's own retention", () => {
  it('says what it removed, also when it ran before the window listened', async () => {
    const { app } = await import('../app/app.svelte');
    const plan = (await mock().backend().retentionPreview('tiny', { days: '1', bytes_per_partition: null }, false)) as { status: 'ok'; data: import('../backend').RetentionPlanDto };
    mock().retentionNotices.push({ ...plan.data, applied: true });
    await app.takeRetentionNotices();
    expect(app.status).toBe('Retention removed 3 old files (11 messages) from tiny, as this store is set to apply retention automatically. Every deletion is listed in a topic\'s Retention tab, under "Deleted by the app".');
    app.status = '';
    app.retentionNotice = null;
    await app.takeRetentionNotices();
    expect(app.status, 'each notice is said once').toBe('');
  });
});
