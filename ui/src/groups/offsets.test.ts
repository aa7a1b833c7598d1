// A group's offsets: every reset mode's request, and offsets exported and imported.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from '../app/App.svelte';
import { app } from '../app/app.svelte';
import { prefs } from '../app/prefs.svelte';
import { clearHistories } from '../shared/history';
import { lagAlerts } from './alerts.svelte';
import { describeThresholds, formatDuration, fromStored, newTracker, NOTIFY_COOLDOWN_MS, parseCount, parseDuration, step } from './lagAlerts';
import { formProblem, parseShift, requestOf, type ResetForm } from './resetModes';
import { stepPath, ticks, xOf, yOf } from './lagHistory';
import type { LagCheckDto } from '../backend';
import { mock, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().forgetListeners();
  mock().seed();
  mock().open = true;
  mock().calls = [];
  mock().notifications = [];
  mock().lagChecks.clear();
  mock().offsetsFile = null;
  mock().exportPath = '/home/you/offsets.json';
  app.info = null;
  app.group = null;
  app.link = {};
  clearHistories();
  localStorage.clear();
  prefs.tz = 'utc';
});
afterEach(() => {
  cleanup();
  mock().seed();
});

const q = <T extends HTMLElement = HTMLElement>(sel: string, root: ParentNode = document) => root.querySelector<T>(sel);
const qa = <T extends HTMLElement = HTMLElement>(sel: string, root: ParentNode = document) => [...root.querySelectorAll<T>(sel)];
const byId = (id: string) => q(`[data-testid="${id}"]`);
const allById = (id: string) => qa(`[data-testid="${id}"]`);

async function openGroup(name: string) {
  render(App);
  await until(() => !!q(`[data-testid="group-item-${name}"] button`), 'group in the sidebar');
  await fireEvent.click(q(`[data-testid="group-item-${name}"] button`)!);
  await until(() => q('[data-testid=group-view]')?.dataset.group === name && allById('group-offsets-row').length > 0, 'group view');
}

describe('reset modes', () => {
  const base: ResetForm = { mode: 'earliest', offsetText: '', timeText: '', shiftText: '', agoText: '', otherGroup: '', file: null, tz: 'utc' };

  it('make the request of each mode, and say what is missing', () => {
    expect(requestOf({ ...base, mode: 'shift', shiftText: '-100' }, null)).toMatchObject({ to: 'shift', shift: '-100', offset: null });
    expect(requestOf({ ...base, mode: 'shift', shiftText: '+5' }, [1])).toMatchObject({ shift: '5', partitions: [1] });
    expect(parseShift('9223372036854775808')).toBeNull();
    expect(formProblem({ ...base, mode: 'shift', shiftText: '0' })).toMatch(/-100/);
    expect(requestOf({ ...base, mode: 'ago', agoText: '30m' }, null)).toMatchObject({ to: 'ago', ago_secs: 1800 });
    expect(formProblem({ ...base, mode: 'ago', agoText: 'soon' })).toMatch(/30m/);
    expect(requestOf({ ...base, mode: 'group', otherGroup: 'idle' }, null)).toMatchObject({ to: 'group', other_group: 'idle' });
    expect(requestOf({ ...base, mode: 'group' }, null)).toBeNull();
    const file = { path: '/x/o.json', group: 'g', topic: 't', offsets: { '0': '5' } };
    expect(requestOf({ ...base, mode: 'file', file }, null)).toMatchObject({ to: 'offsets', offsets: { '0': '5' } });
    expect(formProblem({ ...base, mode: 'file' })).toMatch(/export/);
  });

  it('runs a shift through the dry run table', async () => {
    await openGroup('billing');
    await fireEvent.click(byId('reset-open')!);
    await until(() => !!byId('reset-target'), 'dialog');
    await fireEvent.change(byId('reset-target')!, { target: { value: 'shift' } });
    await fireEvent.input(byId('reset-shift-input')!, { target: { value: '-5' } });
    await fireEvent.click(byId('reset-dry-run')!);
    await until(() => allById('reset-row').length > 0, 'the dry run table');
    const rows = allById('reset-row');
    // Each row moved back 5 from where it resumed (clamped at the start).
    for (const r of rows) {
      const before = r.dataset.before === '' ? 0n : BigInt(r.dataset.before!);
      expect(BigInt(r.dataset.after!)).toBe(before >= 5n ? before - 5n : 0n);
    }
    expect((byId('reset-confirm') as HTMLButtonElement).disabled).toBe(false);
  });

  it('imports a file: the dialog opens in file mode with the file read', async () => {
    mock().offsetsFile = { path: '/home/you/billing-offsets.json', group: 'billing', topic: 'orders', offsets: { '0': '5', '1': '-1' } };
    await openGroup('billing');
    await fireEvent.click(byId('group-import')!);
    await until(() => !!byId('reset-file-name'), 'the import dialog');
    expect(byId('reset-file-name')!.textContent).toMatch(/billing-offsets\.json · 2 partitions/);
    await fireEvent.click(byId('reset-dry-run')!);
    await until(() => allById('reset-row').length === 2, 'the table of the two partitions');
    expect(allById('reset-row').map((r) => r.dataset.partition)).toEqual(['0', '1']);
  });
});

describe('export and import', () => {
  it('says where the offsets went, and a cancelled dialog does nothing', async () => {
    await openGroup('billing');
    await fireEvent.click(byId('group-export')!);
    await until(() => /Exported the offsets of billing to \/home\/you\/offsets\.json/.test(app.status), 'the status line');
    mock().exportPath = null;
    app.status = '';
    await fireEvent.click(byId('group-export')!);
    await fireEvent.click(byId('group-import')!);
    await new Promise((r) => setTimeout(r, 100));
    expect(app.status).toBe('');
    expect(byId('reset-dialog')).toBeNull();
    expect(mock().calls.filter((c) => c[0] === 'exportGroupOffsets' || c[0] === 'pickOffsetsFile').length).toBe(3);
  });
});

describe('a commit past its partition end', () => {
  it('is flagged, with what it means, not shown as a lag of 0', async () => {
    const { default: GroupOffsets } = await import('./GroupOffsets.svelte');
    const partitions = [
      { partition: 0, committed: '43', end: '81', lag: '38', oldest_unconsumed_at: null, owner: 1, past_end: null },
      // As groups describe reports it after a truncation: committed 2,784 on a partition ending at 983.
      { partition: 1, committed: '2784', end: '983', lag: '0', oldest_unconsumed_at: null, owner: 2, past_end: '1801' },
    ];
    const { getByTestId, getAllByTestId } = render(GroupOffsets, { partitions, now: 0, tz: 'utc' });
    const said = getByTestId('group-past-end').textContent!.replace(/\s+/g, ' ');
    expect(said).toContain('P1: committed 2,784, but the partition ends at 983: the next 1,801 messages written there will be skipped by this group');
    expect(getAllByTestId('group-past-end-row').length).toBe(1);
    expect(getAllByTestId('group-offsets-lag')[1].textContent!.trim()).toBe('past end +1,801');
    expect(getAllByTestId('group-offsets-lag')[0].textContent!.trim()).toBe('38');
  });
});

describe('the assignment map of a commit past the end', () => {
  it('says "past end", not "caught up"', async () => {
    const { default: GroupMap } = await import('./GroupMap.svelte');
    const rec = await import('../../tests/helpers').then((h) => h.recordedGroup('billing'));
    const detail = { ...rec, partitions: rec.partitions.map((p, i) => (i === 1 ? { ...p, committed: '2784', end: '983', lag: '0', past_end: '1801' } : p)) };
    const { getAllByTestId } = render(GroupMap, { detail, kinds: new Map() });
    const lags = getAllByTestId('group-map-lag').map((e) => e.textContent!.trim());
    expect(lags[1]).toBe('past end +1,801');
  });
});
