// A group's members (status badges, former members) and deleting a group.
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
import { backend } from '../backend';
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

describe('members', () => {
  it('badges each member with its inferred status and lists former ones apart', async () => {
    await openGroup('billing');
    const rows = allById('group-member');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      const badge = q('[data-testid=member-status]', r)!;
      expect(badge.textContent).toBe(r.dataset.status);
      expect(badge.getAttribute('title')).toMatch(/inferred from the group log: ./);
      expect(q('[data-testid=member-seen]', r)!.textContent).toMatch(/seen|never/);
    }
    const d = mock().describeGroupNow('billing')!;
    expect(rows.map((r) => r.dataset.status)).toEqual(d.members.map((m) => m.status));
    expect(allById('former-member').length).toBe(d.former_members.length);
  });

  it('shows a group whose only member went silent long ago as not live', async () => {
    await openGroup('workers');
    const statuses = allById('group-member').map((r) => r.dataset.status);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses).not.toContain('live');
    expect(byId('group-view-state')!.textContent).toBe('empty');
    expect(byId('member-hint')).not.toBeNull();
    // The topic's groups tab says the same: no live member, the state.
    await fireEvent.click(byId('group-topic')!);
    const row = () => allById('topic-group-row').find((r) => r.dataset.group === 'workers');
    await until(() => !!row(), 'the topic groups tab');
    expect(q('[data-testid=topic-group-live]', row()!)!.textContent).toBe(`0 / ${statuses.length}`);
    expect(q('[data-testid=topic-group-state]', row()!)!.textContent).toBe('empty');
  });
});

describe('deleting a group', () => {
  it('lists what goes and needs the name typed', async () => {
    await openGroup('idle');
    lagAlerts.set('idle', { maxLag: '5', maxAgeSecs: null });
    await fireEvent.click(byId('group-delete')!);
    await until(() => !!byId('delete-group-summary'), 'the preview');
    expect(byId('delete-group-commits')!.textContent).toMatch(/P0=10/);
    const submit = byId('delete-group-submit') as HTMLButtonElement;
    await fireEvent.input(byId('delete-group-confirm-input')!, { target: { value: 'Idle' } });
    expect(submit.disabled).toBe(true);
    await fireEvent.input(byId('delete-group-confirm-input')!, { target: { value: 'idle' } });
    expect(submit.disabled).toBe(false);
    await fireEvent.click(submit);
    await until(() => !byId('group-item-idle'), 'the group gone from the sidebar');
    expect(app.group).toBeNull();
    expect(lagAlerts.thresholds('idle')).toBeNull();
  });

  it('says live 0.2.3 members crash, and deletes only once they are said to be stopped', async () => {
    await openGroup('idle');
    const recorded = await backend.groupDeletePreview('idle');
    if (recorded.status !== 'ok') throw new Error('no recorded preview');
    // As the backend answers for a group whose log shows members 3 (0.2.3) and 4 (ours) live.
    vi.spyOn(backend, 'groupDeletePreview').mockResolvedValue({
      status: 'ok',
      data: { ...recorded.data, members: [3, 4], live_members: [3, 4], live_twainmq_members: [4], live_secs: 30 },
    });
    await fireEvent.click(byId('group-delete')!);
    await until(() => !!byId('delete-group-live'), 'the live members');
    const said = byId('delete-group-live')!.textContent!.replace(/\s+/g, ' ');
    expect(said).toContain('Members 3, 4 look live');
    expect(said).toContain('A running 0.2.3 member (3) crashes with FileNotFoundError');
    expect(said).not.toMatch(/makes the group again/);
    expect(byId('delete-group-confirm-input'), 'no deleting while they look live').toBeNull();
    await fireEvent.click(byId('delete-group-members-stopped')!);
    await until(() => !!byId('delete-group-confirm-input'), 'the confirmation once they are said stopped');
    await fireEvent.input(byId('delete-group-confirm-input')!, { target: { value: 'idle' } });
    await fireEvent.click(byId('delete-group-submit')!);
    await until(() => !byId('group-item-idle'), 'the group gone from the sidebar');
    expect(mock().calls.find((c) => c[0] === 'deleteGroup')).toEqual(['deleteGroup', 'idle', 'idle', true]);
    vi.restoreAllMocks();
  });
});
