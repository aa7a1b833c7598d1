// A group's lag: the alert rules (thresholds, no flapping, the badge and the notification),
// alerts in the app, and the lag history chart's geometry.
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

describe('lag alert rules', () => {
  it('reads thresholds as typed and as stored, and refuses what is not one', () => {
    expect(parseDuration('10m')).toBe(600);
    expect(parseDuration('1h30m')).toBe(5400);
    for (const bad of ['', '10', 'm', '-5m', '1.5h', '10 minutes']) expect(parseDuration(bad)).toBeNull();
    expect(formatDuration(5400)).toBe('1h30m');
    expect(parseDuration(formatDuration(93784))).toBe(93784);
    expect(parseCount('1 000')).toBe('1000');
    expect(parseCount('18446744073709551615')).toBe('18446744073709551615');
    expect(parseCount('18446744073709551616')).toBeNull();
    expect(parseCount('-1')).toBeNull();
    expect(fromStored({ maxLag: '12', maxAgeSecs: null })).toEqual({ maxLag: '12', maxAgeSecs: null });
    expect(fromStored({ maxLag: 'x', maxAgeSecs: -3 })).toBeNull();
    expect(fromStored('junk')).toBeNull();
    expect(describeThresholds({ maxLag: '5', maxAgeSecs: 600 })).toBe('lag above 5 messages in a partition or oldest unconsumed message older than 10m');
  });

  it('notifies once when crossed and once when recovered, never a flap within the cooldown', () => {
    expect(NOTIFY_COOLDOWN_MS).toBeGreaterThanOrEqual(5000);
    const C = NOTIFY_COOLDOWN_MS;
    // Within from the start: nothing to say.
    let r = step(newTracker(), false, 0);
    expect(r.notify).toBeNull();
    r = step(r.tracker, true, 1000);
    expect(r.notify).toBe('crossed');
    // Still over: silent. Back within 2 s later, over again: a flap, never told.
    expect(step(r.tracker, true, 2000).notify).toBeNull();
    r = step(r.tracker, false, 3000);
    expect(r.notify).toBeNull();
    r = step(r.tracker, true, 4000);
    expect(r.notify).toBeNull();
    // Past the cooldown and still over: nothing new to tell.
    r = step(r.tracker, true, 1000 + C + 1);
    expect(r.notify).toBeNull();
    // Within and held past the cooldown: told once.
    r = step(r.tracker, false, 1000 + C + 2);
    expect(r.notify).toBe('recovered');
    expect(step(r.tracker, false, 1000 + 3 * C).notify).toBeNull();
  });
});

describe('lag alerts in the app', () => {
  const check = (over: boolean): LagCheckDto => ({
    group: 'billing',
    state: 'stable',
    total_lag: over ? '40' : '0',
    oldest_age_secs: over ? 700 : null,
    over: over ? [{ partition: 2, lag: '40', age_secs: 700, over: ['max_lag'] }] : [],
    at: 1796083200,
  });

  it('sets thresholds, badges the sidebar and notifies when crossed and recovered', async () => {
    mock().lagChecks.set('billing', { status: 'ok', data: check(false) });
    await openGroup('billing');
    await fireEvent.input(byId('alert-max-lag')!, { target: { value: '10' } });
    await fireEvent.click(byId('alert-save')!);
    await until(() => /No partition over the alert/.test(byId('alert-state')!.textContent ?? ''), 'the first check');
    expect(JSON.parse(localStorage.getItem('twainmq.lagAlerts')!)[app.info!.root].billing).toEqual({ maxLag: '10', maxAgeSecs: null });
    expect(mock().notifications).toEqual([]);
    expect(q('[data-testid="group-item-billing"] [data-testid=group-alert]')).toBeNull();

    mock().lagChecks.set('billing', { status: 'ok', data: check(true) });
    await lagAlerts.checkAll();
    await until(() => !!q('[data-testid="group-item-billing"] [data-testid=group-alert]'), 'the sidebar badge');
    expect(mock().notifications.map((n) => n.title)).toEqual(['Group billing is lagging']);
    expect(mock().notifications[0].body).toMatch(/P2 \(lag 40\)/);
    expect(allById('alert-event').map((e) => `${e.dataset.kind}:${e.dataset.notified}`)).toEqual(['crossed:sent']);

    // Recovered, past the cooldown: one more notification, the badge goes.
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + NOTIFY_COOLDOWN_MS + 1000);
    mock().lagChecks.set('billing', { status: 'ok', data: check(false) });
    await lagAlerts.checkAll();
    await until(() => !q('[data-testid="group-item-billing"] [data-testid=group-alert]'), 'the badge gone');
    vi.restoreAllMocks();
    expect(mock().notifications.map((n) => n.title)).toEqual(['Group billing is lagging', 'Group billing caught up']);
    expect(allById('alert-event').map((e) => e.dataset.kind)).toEqual(['recovered', 'crossed']);
    lagAlerts.clear('billing');
  });

  it('refuses thresholds that are not numbers or durations', async () => {
    await openGroup('billing');
    await fireEvent.input(byId('alert-max-age')!, { target: { value: '10 minutes' } });
    expect((byId('alert-save') as HTMLButtonElement).disabled).toBe(true);
    expect(byId('lag-alerts')!.textContent).toMatch(/duration such as 90s, 10m/);
  });
});

describe('the lag history chart', () => {
  it('lays out ticks for the span and step lines that scale exactly', () => {
    const day = ticks(0, 86400, 'utc');
    expect(day.map((t) => t.label)).toEqual(['00:00', '06:00', '12:00', '18:00', '00:00']);
    const g = { w: 600, h: 150, from: 0, to: 100, max: 2n ** 63n };
    expect(xOf(g, 50)).toBe(300);
    expect(yOf(g, 2n ** 63n)).toBeCloseTo(17, 5);
    expect(yOf(g, 0n)).toBe(149);
    expect(stepPath(g, [{ at: 50, lag: '0' }, { at: 100, lag: (2n ** 63n).toString() }])).toBe('M0,149.0H300.0V17.0H600.0');
  });

  it('shows the recorded day of billing with its marks, and switches span', async () => {
    await openGroup('billing');
    await until(() => byId('lag-history')?.dataset.points !== '0', 'the history');
    const h = byId('lag-history')!;
    expect(h.dataset.span).toBe('day');
    expect(Number(h.dataset.points)).toBe(240);
    expect(allById('lag-mark').length).toBe(Number(h.dataset.marks));
    await fireEvent.click(byId('lag-span-week')!);
    await until(() => byId('lag-history')!.dataset.span === 'week' && byId('lag-history')!.dataset.points === '240', 'the week');
    expect(localStorage.getItem('twainmq.lagSpan')).toBe('week');
    await fireEvent.click(byId('lag-span-live')!);
    await until(() => !!byId('lag-chart'), 'the live chart');
  });
});
