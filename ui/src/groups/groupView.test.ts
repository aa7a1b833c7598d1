// A group's view: demo members stay out of groups others are in unless asked, a reset says
// what it commits, the lag chart opens on a span that shows the group, and the round banner
// keeps its place.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from '../app/App.svelte';
import { app } from '../app/app.svelte';
import { prefs } from '../app/prefs.svelte';
import { freshLaunch, mock, openDemo, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => cleanup());

describe('demo members stay out of groups others are in, unless asked', () => {
  it('asks first, saying what the demo would do to the real members', async () => {
    mock().open = true;
    const r = render(App);
    await until(() => !!document.querySelector('[data-testid="group-item-billing"] button'), 'billing in the sidebar');
    // billing's two members, live (as a CLI consumer running now would be).
    const g = mock().groups.get('billing')!;
    g.detail = { ...g.detail, members: g.detail.members.map((m) => ({ ...m, status: 'live' as const })) };
    await fireEvent.click(document.querySelector<HTMLElement>('[data-testid="group-item-billing"] button')!);
    await until(() => !!document.querySelector('[data-testid=demo-add]'), 'the demo panel');
    await fireEvent.input(r.getByTestId('demo-window'), { target: { value: '120' } });
    await fireEvent.click(r.getByTestId('demo-add'));
    await until(() => !!document.querySelector('[data-testid=demo-in-use]'), 'the question');
    expect(r.getByTestId('demo-in-use').textContent).toMatch(/2 members this app did not start \(m1, m2\).*never process those messages/s);
    expect(document.querySelectorAll('[data-testid=demo-member]')).toHaveLength(0);
    expect((r.getByTestId('demo-add') as HTMLButtonElement).disabled).toBe(true);
    // Cancel: nothing started, the question gone.
    await fireEvent.click(r.getByTestId('demo-in-use-cancel'));
    expect(document.querySelector('[data-testid=demo-in-use]')).toBeNull();
    // Asked again and agreed: it joins.
    await fireEvent.click(r.getByTestId('demo-add'));
    await until(() => !!document.querySelector('[data-testid=demo-in-use-join]'), 'the question again');
    await fireEvent.click(r.getByTestId('demo-in-use-join'));
    await until(() => document.querySelector<HTMLElement>('[data-testid=demo-member]')?.dataset.status === 'running', 'the member running');
    expect(mock().calls.filter((c) => c[0] === 'demoStartMember').map((c) => c[5])).toEqual([false, false, true]);
  });
});

describe('a reset says what it commits', () => {
  const byId = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  async function dryRun(offset: string) {
    const input = byId('reset-offset-input') as HTMLInputElement;
    await fireEvent.input(input, { target: { value: offset } });
    await fireEvent.click(byId('reset-dry-run')!);
    await until(() => !!byId('reset-table') && [...document.querySelectorAll<HTMLElement>('[data-testid=reset-row]')].every((r) => r.dataset.after === offset || offset === '200'), `the dry run of ${offset}`);
  }

  it('puts a space after the comma of "read again, … skipped", and says when an offset asked for was moved', async () => {
    mock().open = true;
    render(App);
    await until(() => !!document.querySelector('[data-testid="group-item-billing"] button'), 'billing in the sidebar');
    await fireEvent.click(document.querySelector<HTMLElement>('[data-testid="group-item-billing"] button')!);
    await until(() => !!byId('reset-open'), 'the group view');
    await fireEvent.click(byId('reset-open')!);
    await until(() => !!byId('reset-target'), 'the dialog');
    await fireEvent.change(byId('reset-target')!, { target: { value: 'offset' } });
    await until(() => !!byId('reset-offset-input'), 'the offset field');
    await dryRun('60');
    const foot = byId('reset-table')!.querySelector('tfoot')!.textContent!.replace(/\s+/g, ' ');
    expect(foot).toMatch(/\d+ messages read again, \d+ messages skipped/);
    expect(byId('reset-clamped')).toBeNull();
    // Past every partition's end: each row says what was asked and where it goes instead.
    await dryRun('200');
    const clamped = [...document.querySelectorAll<HTMLElement>('[data-testid=reset-clamped]')].map((e) => e.textContent!.trim());
    expect(clamped).toHaveLength(5);
    expect(clamped.every((t) => t === '(asked 200: past the end)')).toBe(true);
    expect(byId('reset-clamped-note')!.textContent).toMatch(/Partitions 0, 1, 2, 3, 4: the offsets asked for are outside what they hold, so they move to the nearest offset there/);
  });
});

describe('the lag chart opens on a span that shows the group', () => {
  it('moves off a span in which the group is a sliver, and says so', async () => {
    // The span saved from before: a week, in which billing (3 h old) would be a sliver at the right edge.
    localStorage.setItem('twainmq.lagSpan', 'week');
    mock().open = true;
    render(App);
    await until(() => !!document.querySelector('[data-testid="group-item-billing"] button'), 'billing in the sidebar');
    await fireEvent.click(document.querySelector<HTMLElement>('[data-testid="group-item-billing"] button')!);
    const chart = () => document.querySelector<HTMLElement>('[data-testid=lag-history]');
    await until(() => chart()?.dataset.span === 'all' && Number(chart()!.dataset.points) > 0, 'the whole life shown', 5000);
    expect(document.querySelector('[data-testid=lag-history-fitted]')!.textContent).toBe('Showing its whole life: the group is 3 h old.');
    expect(mock().calls.filter((c) => c[0] === 'lagHistory').map((c) => c[2])).toEqual(['week', 'all']);
    // The saved choice is not changed by the fit; a span chosen in the view is kept.
    expect(localStorage.getItem('twainmq.lagSpan')).toBe('week');
    await fireEvent.click(document.querySelector<HTMLElement>('[data-testid=lag-span-day]')!);
    await until(() => chart()?.dataset.span === 'day' && Number(chart()!.dataset.points) > 0, 'the day chosen');
    expect(document.querySelector('[data-testid=lag-history-fitted]')).toBeNull();
    localStorage.removeItem('twainmq.lagSpan');
  });
});

describe('the round banner keeps its place', () => {
  it('holds the same slot with and without an open round', async () => {
    mock().open = true;
    render(App);
    await until(() => !!document.querySelector('[data-testid="group-item-billing"] button'), 'billing in the sidebar');
    await fireEvent.click(document.querySelector<HTMLElement>('[data-testid="group-item-billing"] button')!);
    await until(() => !!document.querySelector('[data-testid=round-slot]'), 'the slot');
    const slot = document.querySelector('[data-testid=round-slot]')!;
    // No round open: the slot says so (its height is kept by CSS; the e2e suite measures it).
    expect(slot.querySelector('[data-testid=round-banner]')).toBeNull();
    expect(slot.querySelector('[data-testid=round-idle]')!.textContent).toMatch(/^no round open/);
  });
});
