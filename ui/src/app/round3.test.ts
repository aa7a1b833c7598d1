// Issue 24 ("the app, round 3"): each item whose behaviour is the UI's own, checked against the
// recorded backend. The e2e suite (tests/e2e/round3.test.mjs) checks the same screens in the real app.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from './App.svelte';
import { app } from './app.svelte';
import { prefs } from './prefs.svelte';
import { freshLaunch, mock, openDemo, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => cleanup());

describe('item 13: New Topic offers what the CLI and 0.2.3 make', () => {
  it('opens on a u16 key and one partition', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('create-topic'));
    expect((getByTestId('create-topic-key-type') as HTMLSelectElement).value).toBe('u16');
    expect((getByTestId('create-topic-partitions') as HTMLInputElement).value).toBe('1');
  });
});

describe('item 14: the native parts follow the window', () => {
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

  it('offers the three launch choices the README names', async () => {
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

describe('item 13: counts in words', () => {
  it('says "1 topic", not "1 topics"', async () => {
    await openDemo();
    const totals = () => document.querySelector('[data-testid=status-totals]')!.textContent!.trim();
    expect(totals()).toMatch(/^[\d,]+ topics · /);
    app.info = { ...app.info!, topics: app.info!.topics.slice(0, 1) };
    await until(() => /^1 topic · /.test(totals()), '1 topic');
  });
});

describe('item 6: demo members stay out of groups others are in, unless asked', () => {
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

describe('item 9: a reset says what it commits', () => {
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

describe('item 4: a follow that stops says so', () => {
  const behind = () => document.querySelector('[data-testid=follow-behind]');
  async function followChat() {
    const r = await openDemo();
    await fireEvent.click(r.getByTestId('topic-item-chat'));
    await until(() => !!document.querySelector('[data-testid=follow-toggle]'), 'the chat messages');
    const toggle = r.getByTestId('follow-toggle');
    if (toggle.getAttribute('aria-pressed') !== 'true') await fireEvent.click(toggle);
    return r;
  }
  /** Append to chat every 100 ms for `ms`, as a busy producer would. */
  let sent = 0;
  async function produceFor(ms: number) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      mock().appendNow('chat', 'ada', { text: `busy ${sent++}` }, 0);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('keeps quiet while the table keeps up with a busy log', async () => {
    await followChat();
    await produceFor(4500);
    expect(behind()).toBeNull();
  }, 15000);

  it('follows a busy timeline after a row was clicked, Esc, F (it froze there: issue 24)', async () => {
    const r = await followChat();
    mock().latency = 20; // reads take a moment: describes of the growing log arrive meanwhile
    try {
      await produceFor(500);
      // Click a row (follow stops), Esc, then F: follow again.
      await until(() => document.querySelectorAll('[data-testid=message-row]').length > 3, 'rows');
      await fireEvent.click(document.querySelectorAll<HTMLElement>('[data-testid=message-row]')[2]);
      await fireEvent.keyDown(document.body, { key: 'Escape' });
      const producing = produceFor(3000);
      await new Promise((res) => setTimeout(res, 400));
      if (r.getByTestId('follow-toggle').getAttribute('aria-pressed') !== 'true') await fireEvent.keyDown(document.body, { key: 'f' });
      expect(r.getByTestId('follow-toggle').getAttribute('aria-pressed')).toBe('true');
      await producing;
      // Every message produced is on screen within a moment: the newest row is the last sent.
      const lastSent = sent - 1;
      const newest = () => [...document.querySelectorAll<HTMLElement>('[data-testid=message-row]')].some((e) => e.textContent!.includes(`busy ${lastSent}`));
      await until(newest, `the newest message (busy ${lastSent}) on screen`, 3000);
    } finally {
      mock().latency = 0;
    }
  }, 20000);

  it('says how far behind and for how long when the table stops moving', async () => {
    await followChat();
    await produceFor(300);
    // Reads stop answering (the backend stuck): the log grows, the table cannot move on.
    const never = new Promise<void>(() => {});
    for (const read of ['readPage', 'timelineAfter', 'timelineBefore']) mock().held.set(read, never);
    await produceFor(4000);
    await until(() => !!behind(), 'the stall said', 3000);
    expect(behind()!.textContent).toMatch(/follow is [\d,]+ rows behind \(\d+ s\)/);
    mock().held.clear();
  }, 15000);
});

describe('item 11: the lag chart opens on a span that shows the group', () => {
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

describe('item 12: the round banner keeps its place', () => {
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

describe('item 15: a screen stops its work when it goes', () => {
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

describe('item 2: no false "deleted and made again"', () => {
  it('a view being replaced does not compare the next topic with its own', async () => {
    const r = await openDemo();
    await fireEvent.click(r.getByTestId('topic-item-orders'));
    await until(() => !!document.querySelector('[data-testid=tab-messages]'), 'orders shown');
    await new Promise((res) => setTimeout(res, 50));
    // A change to orders: its view's next reload waits out the refresh spacing...
    mock().emitChange({ topics: ['orders'], groups: [], structure: false });
    await new Promise((res) => setTimeout(res, 20));
    // ...while another topic is opened in its place.
    await fireEvent.click(r.getByTestId('topic-item-chat'));
    await new Promise((res) => setTimeout(res, 1500));
    expect(app.status).not.toMatch(/deleted and made again/);
    expect(document.querySelector('[data-testid=topic-remade]')).toBeNull();
  });
});
