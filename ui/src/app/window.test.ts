// The window's own parts: the native menu's theme and marks follow the window, counts are
// said in words, and a screen stops its work when it goes.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from './App.svelte';
import { app } from './app.svelte';
import { prefs } from './prefs.svelte';
import { freshLaunch, mock, openDemo, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => cleanup());

describe('the native parts follow the window', () => {
  const last = () => mock().viewStates[mock().viewStates.length - 1];

  it('tells the backend its theme, for the menu bar, and the View toggles, for their check marks', async () => {
    prefs.setTheme('dark');
    const { getByTestId } = await openDemo();
    await until(() => mock().viewStates.length > 0, 'a view state');
    expect(last()).toEqual({ dark: true, checks: { utc: prefs.tz === 'utc', follow_tail: null, detail_pane: null } });
    prefs.setTheme('light');
    await until(() => last().dark === false, 'light sent');
    // A topic's Messages tab on screen: Follow Tail and Detail Pane apply, with their state.
    await fireEvent.click(getByTestId('topic-item-firehose'));
    await until(() => last().checks.follow_tail !== null, 'the topic checks');
    const was = last().checks.follow_tail;
    await fireEvent.click(getByTestId('follow-toggle'));
    await until(() => last().checks.follow_tail === !was, 'follow toggled');
    expect(last().checks.detail_pane).toBe(false);
    prefs.setTz(prefs.tz === 'utc' ? 'local' : 'utc');
    await until(() => last().checks.utc === (prefs.tz === 'utc'), 'the zone');
  });

  it('offers the three launch choices docs/USING.md names', async () => {
    await openDemo();
    const { actions } = await import('./actions.svelte');
    actions.overlay = 'settings';
    await until(() => !!document.querySelector('[data-testid=settings-dialog]'), 'settings');
    const choices = [...document.querySelectorAll<HTMLElement>('[data-testid^=settings-launch-]')].filter((e) => e.tagName === 'LABEL');
    expect(choices.map((c) => c.dataset.testid)).toEqual(['settings-launch-last', 'settings-launch-store', 'settings-launch-welcome']);
    expect(choices[1].textContent).toContain('This store');
    await fireEvent.click(choices[1].querySelector('input')!);
    expect(prefs.launch).toBe('store');
    expect(prefs.launchStore).toBe(app.info!.root);
    actions.overlay = null;
  });
});

describe('counts in words', () => {
  it('says "1 topic", not "1 topics"', async () => {
    await openDemo();
    const totals = () => document.querySelector('[data-testid=status-totals]')!.textContent!.trim();
    expect(totals()).toMatch(/^[\d,]+ topics · /);
    app.info = { ...app.info!, topics: app.info!.topics.slice(0, 1) };
    await until(() => /^1 topic · /.test(totals()), '1 topic');
  });

  it('calls the total lines when a topic of large messages is in it (its count is of lines)', async () => {
    await openDemo();
    const totals = () => document.querySelector('[data-testid=status-totals]')!.textContent!.trim();
    expect(app.info!.topics.some((t) => t.max_message_bytes)).toBe(true);
    expect(totals()).toMatch(/ lines$/);
    app.info = { ...app.info!, topics: app.info!.topics.filter((t) => !t.max_message_bytes) };
    await until(() => / messages$/.test(totals()), 'messages');
  });
});

describe('a screen stops its work when it goes', () => {
  it('a stopped loader runs nothing it had queued, and nothing after', async () => {
    const { coalesced } = await import('../shared/loader');
    let runs = 0;
    const load = coalesced(async () => {
      runs++;
    }, 200);
    await load();
    expect(runs).toBe(1);
    // A change asks again: the next run waits out the 200 ms spacing, then would run.
    void load();
    const queued = load();
    load.stop();
    await queued;
    await new Promise((r) => setTimeout(r, 300));
    expect(runs).toBe(1);
    await load();
    expect(runs).toBe(1);
  });

  it('leaving a group page stops its reads', async () => {
    mock().open = true;
    const r = render(App);
    await until(() => !!document.querySelector('[data-testid="group-item-billing"] button'), 'billing in the sidebar');
    await fireEvent.click(document.querySelector<HTMLElement>('[data-testid="group-item-billing"] button')!);
    await until(() => mock().calls.some((c) => c[0] === 'lagHistory'), 'the lag history read');
    // A change to the group while the page shows: its reads are queued (2 s apart for the history).
    mock().emitChange({ topics: [], groups: ['billing'], structure: false });
    await new Promise((res) => setTimeout(res, 50));
    await fireEvent.click(r.getByTestId('topic-item-orders'));
    await until(() => !document.querySelector('[data-testid=group-view]'), 'the group page gone');
    const n = mock().calls.length;
    await new Promise((res) => setTimeout(res, 2500));
    const after = mock().calls.slice(n).map((c) => c[0]);
    expect(after.filter((c) => c === 'lagHistory' || c === 'describeGroup' || c === 'demoMembers')).toEqual([]);
  }, 10000);
});
