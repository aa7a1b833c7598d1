import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from '../app/App.svelte';
import { app } from '../app/app.svelte';
import { prefs } from '../app/prefs.svelte';
import { clearHistories } from '../shared/history';
import { humanDuration, memberHue } from '../shared/format';
import { mock, recordedGroup, recordedRows, recording, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().forgetListeners(); // each render starts the app again, with listeners of its own
  mock().seed();
  mock().open = true;
  mock().watching = true;
  mock().calls = [];
  app.info = null;
  app.topic = null;
  app.group = null;
  app.dialog = null;
  app.link = {};
  clearHistories();
  localStorage.clear();
  prefs.tz = 'utc';
});
afterEach(() => {
  cleanup();
  mock().seed(); // stops the double's timers (rounds, demo members)
});

/** The committed offset the mock's group holds now, per partition. */
const committedNow = (group: string) => mock().describeGroupNow(group)!.partitions.map((p) => p.committed);
const sum = (xs: string[]) => xs.reduce((s, x) => s + BigInt(x), 0n).toString();

const q = <T extends HTMLElement = HTMLElement>(sel: string, root: ParentNode = document) => root.querySelector<T>(sel);
const qa = <T extends HTMLElement = HTMLElement>(sel: string, root: ParentNode = document) => [...root.querySelectorAll<T>(sel)];
const byId = (id: string) => q(`[data-testid="${id}"]`);
const allById = (id: string) => qa(`[data-testid="${id}"]`);

async function waitFor(testid: string, ms = 3000): Promise<HTMLElement> {
  await until(() => !!byId(testid), testid, ms);
  return byId(testid)!;
}

/** Owner of each partition as the map shows it: "0:1 1:2 …". */
const mapText = () =>
  allById('group-map-cell')
    .map((c) => `${c.dataset.partition}:${c.dataset.member}`)
    .join(' ');

async function openGroup(name: string) {
  const r = render(App);
  await until(() => !!q(`[data-testid="group-item-${name}"] button`), 'group in the sidebar');
  await fireEvent.click(q(`[data-testid="group-item-${name}"] button`)!);
  await until(() => q('[data-testid=group-view]')?.dataset.group === name && allById('group-offsets-row').length > 0, 'group view');
  return r;
}

async function typeInto(el: HTMLElement, value: string) {
  await fireEvent.input(el, { target: { value } });
}

describe('the group view', () => {
  it('opens from the sidebar and colours each partition by the member holding it', async () => {
    await openGroup('billing');
    expect(app.group).toBe('billing');
    // The engine's assignment of billing's five partitions to its two members.
    expect(mapText()).toBe('0:1 1:2 2:1 3:2 4:1');
    for (const cell of allById('group-map-cell')) {
      const id = Number(cell.dataset.member);
      expect(cell.getAttribute('style')).toContain(`--h: ${memberHue(id)}`);
    }
    const legend = allById('group-member');
    expect(legend.map((m) => m.dataset.member)).toEqual(['1', '2']);
    // The kind of client, host and pid, as its JOINED record says (the recording's fixed ones).
    expect(legend[0].textContent).toMatch(/member 1\s*twainmq CLI 0\.1\.0 on build-host, pid 4242\s*P 0, 2, 4/);
    expect(legend[1].getAttribute('style')).toContain(`--h: ${memberHue(2)}`);
    // The same colours in the topic's Groups tab.
    await fireEvent.click(byId('group-topic')!);
    const billingRow = () => allById('topic-group-row').find((r) => r.dataset.group === 'billing');
    await until(() => qa('[data-testid=topic-group-cell]', billingRow() ?? document.createElement('div')).length === 5, 'the topic groups tab');
    const mini = qa('[data-testid=topic-group-cell]', billingRow()!);
    expect(mini.map((c) => c.dataset.member)).toEqual(['1', '2', '1', '2', '1']);
    expect(mini[1].getAttribute('style')).toContain(`--h: ${memberHue(2)}`);
  });

  it('shows a 0.2.3 group on the topic its partition count matches', async () => {
    // The fixture's groups, made by 0.2.3, record no topic: events is the only 4-partition topic.
    render(App);
    await until(() => !!byId('topic-item-events'), 'topics');
    await fireEvent.click(byId('topic-item-events')!);
    await fireEvent.click(await waitFor('tab-groups'));
    await until(() => allById('topic-group-row').length === 2, 'tail and workers listed');
    expect(allById('topic-group-row').map((r) => r.dataset.group)).toEqual(['tail', 'workers']);
    const tail = allById('topic-group-row').find((r) => r.dataset.group === 'tail')!;
    await fireEvent.click(q('[data-testid=topic-group-open]', tail)!);
    await until(() => q('[data-testid=group-view]')?.dataset.group === 'tail' && allById('group-offsets-row').length === 4, 'tail view');
    // 0.2.3 wrote -1 ("the end when taken").
    expect(allById('group-offsets-row').map((r) => r.dataset.committed)).toEqual(['-1', '-1', '-1', '-1']);
    expect(allById('group-offsets-row')[0].textContent).toMatch(/end\s*\(−1\)/);
  });

  it('counts an open round down and drops the banner when it ends', async () => {
    await openGroup('billing');
    expect(byId('round-banner')).toBeNull();
    expect((await mock().backend().triggerRound('billing', 2400)).status).toBe('ok');
    const banner = await waitFor('round-banner');
    const left = () => Number(/rebalancing: ends in (\d+\.\d) s/.exec(byId('round-banner')?.textContent ?? '')?.[1] ?? NaN);
    expect(left()).toBeGreaterThan(1.8);
    // Both members offer at once; let the view take that in, then watch the clock.
    await until(() => /offers so far:\s*m1\s*m2/.test(byId('round-banner')!.textContent!), 'the offers');
    await new Promise((r) => setTimeout(r, 400));
    const first = left();
    expect(first).toBeGreaterThan(1.2);
    expect(first).toBeLessThanOrEqual(2.4);
    expect(banner.textContent).toMatch(/ends in \d\.\d s/);
    // A tick a second: the next value is about a second less.
    await until(() => left() !== first, 'the next tick', 1600);
    expect(first - left()).toBeGreaterThan(0.6);
    expect(first - left()).toBeLessThan(1.4);
    await until(() => /ends in 0\.\d s/.test(byId('round-banner')?.textContent ?? ''), 'another second later', 1600);
    await until(() => !byId('round-banner'), 'the round to end', 4000);
    const newest = allById('round-item')[0];
    expect(newest.dataset.state).toBe('ended');
    expect(newest.textContent).toMatch(/started from outside/);
    expect(newest.textContent).toMatch(/m1 → 0, 2, 4/);
  });

  it('shows committed and end offsets exactly, beyond 2^53', async () => {
    // auditors reads ledger, whose only file starts at 2^62; it committed 2^62 + 1.
    await openGroup('auditors');
    const row = allById('group-offsets-row')[0];
    expect(row.dataset.committed).toBe('4611686018427387905');
    expect(row.dataset.lag).toBe('2');
    expect(row.textContent).toContain('4,611,686,018,427,387,907');
    expect(byId('group-offsets-lag')!.textContent).toBe('2');
    // Lag age: now − the oldest unconsumed message's time (4000 s before the recording's now).
    const p = recordedGroup('auditors').partitions[0];
    expect(recordedGroup('auditors').now! - p.oldest_unconsumed_at!).toBe(4000);
    expect(humanDuration(4000)).toBe('1 h 6 min');
    expect(row.textContent).toMatch(/1 h 6 min/);
  });

  it('sums lag with BigInt and ages it from the oldest unconsumed message', async () => {
    await openGroup('billing');
    const rows = allById('group-offsets-row');
    expect(rows.map((r) => r.dataset.committed)).toEqual(['43', '73', '44', '87', '44']);
    expect(rows.map((r) => r.dataset.lag)).toEqual(['38', '0', '25', '0', '46']);
    expect(byId('group-offsets-total')!.textContent).toBe('109');
    expect(rows[1].textContent).toMatch(/—\s*$/); // caught up: no age
    expect(rows[0].textContent).toMatch(/\d+ d \d+ h|\d+ h/);
  });
});

describe('resetting offsets', () => {
  it('always dry-runs first, and only applies on confirm', async () => {
    await openGroup('billing');
    await fireEvent.click(byId('reset-open')!);
    const confirm = (await waitFor('reset-confirm')) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    await fireEvent.change(byId('reset-target')!, { target: { value: 'offset' } });
    await typeInto(await waitFor('reset-offset-input'), '30');
    expect(confirm.disabled).toBe(true);
    await fireEvent.click(byId('reset-dry-run')!);
    await waitFor('reset-table');
    const resets = () => mock().calls.filter((c) => c[0] === 'resetGroup');
    expect(resets().map((c) => (c[2] as { dry_run: boolean }).dry_run)).toEqual([true]);
    expect(resets()[0][2]).toEqual({ to: 'offset', offset: '30', time: null, shift: null, ago_secs: null, other_group: null, offsets: null, file_group: null, file_topic: null, partitions: null, dry_run: true, topic: null });
    const rows = allById('reset-row');
    expect(rows.map((r) => `${r.dataset.partition}:${r.dataset.before}→${r.dataset.after}`)).toEqual(['0:43→30', '1:73→30', '2:44→30', '3:87→30', '4:44→30']);
    expect(allById('reset-change').map((c) => `${c.dataset.kind} ${c.dataset.n}`)).toEqual(['replay 13', 'replay 43', 'replay 14', 'replay 57', 'replay 14']);
    expect(byId('reset-table')!.textContent).toMatch(/141 messages read again/);
    // Nothing written yet.
    expect(committedNow('billing')[0]).toBe('43');

    // Changing the choice makes the table stale: confirm waits for a new dry run.
    expect(confirm.disabled).toBe(false);
    await typeInto(byId('reset-offset-input')!, '60');
    expect((byId('reset-confirm') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(byId('reset-scope-chosen')!);
    await fireEvent.click(qa('[data-testid=reset-partition]').find((c) => c.dataset.partition === '0')!);
    await fireEvent.click(byId('reset-dry-run')!);
    await until(() => allById('reset-row').length === 1, 'one row');
    expect(allById('reset-change')[0].dataset.kind).toBe('skip');
    expect(allById('reset-change')[0].dataset.n).toBe('17');

    await fireEvent.click(byId('reset-confirm')!);
    await waitFor('reset-result');
    expect(resets().map((c) => (c[2] as { dry_run: boolean }).dry_run)).toEqual([true, true, false]);
    // Confirm commits the offsets the dry run showed, not the target computed again.
    expect(resets()[2][2]).toEqual({ to: 'offsets', offset: null, time: null, shift: null, ago_secs: null, other_group: null, offsets: { '0': '60' }, file_group: null, file_topic: null, partitions: [0], dry_run: false, topic: 'orders' });
    expect(byId('reset-result')!.textContent).toMatch(/as the dry run showed/);
    // The group as the engine had it after this reset: P0 moved, the others not.
    expect(committedNow('billing')).toEqual(['60', '73', '44', '87', '44']);
    await fireEvent.click(byId('reset-done')!);
    await until(() => allById('group-offsets-row')[0]?.dataset.committed === '60', 'the table to show the new commit');
  });

  it('resets to a time typed in the chosen zone', async () => {
    await openGroup('billing');
    await fireEvent.click(byId('reset-open')!);
    await fireEvent.change(await waitFor('reset-target'), { target: { value: 'time' } });
    // An hour after orders' first message: a few offsets into P0.
    const orders = recordedRows('orders', 0);
    const first = orders[0].row === 'message' ? orders[0].timestamp! : NaN;
    const iso = new Date((first + 3600) * 1000).toISOString().slice(0, 19);
    await typeInto(await waitFor('reset-time-input'), iso);
    await fireEvent.click(byId('reset-dry-run')!);
    await waitFor('reset-table');
    const call = mock().calls.find((c) => c[0] === 'resetGroup')!;
    expect((call[2] as { time: number }).time).toBe(Math.floor(first + 3600));
    // The engine's answer: the first message at or after that time.
    const after = Number(allById('reset-row')[0].dataset.after);
    const ts = (o: number) => (orders[o].row === 'message' ? orders[o].timestamp! : NaN);
    expect(after).toBeGreaterThan(0);
    expect(ts(after - 1)).toBeLessThan(first + 3600);
    expect(ts(after)).toBeGreaterThanOrEqual(first + 3600);
  });

  it('says our members move to a reset, warns only of those that overwrite it, and nothing for an empty group', async () => {
    await openGroup('billing');
    await fireEvent.click(byId('reset-open')!);
    // Before the dry run says who is who, every holder is warned about.
    expect((await waitFor('reset-live-warning')).textContent).toMatch(/Members 1 and 2 hold partitions:\s*their next commit overrides this reset/);
    await fireEvent.click(await waitFor('reset-dry-run'));
    await waitFor('reset-table');
    // billing's members are the engine's own (recorded): they follow the reset.
    expect(byId('reset-live-warning')).toBeNull();
    expect(byId('reset-following')!.textContent).toMatch(/Members 1 and 2 hold partitions \(TwainMQ Desktop or CLI members\): they move to these offsets/);
    cleanup();
    app.group = null;
    // idle reads orders too, but nobody is in it.
    await openGroup('idle');
    await fireEvent.click(byId('reset-open')!);
    await fireEvent.click(await waitFor('reset-dry-run'));
    await waitFor('reset-table');
    expect(byId('reset-live-warning')).toBeNull();
  });
});

describe('liveness', () => {
  it('says what the log shows: members no longer writing are not counted live, and the group is empty', async () => {
    await openGroup('billing');
    // Recorded from the engine: billing's two members wrote nothing for many windows.
    expect(byId('group-view-state')!.textContent).toBe('empty');
    expect(byId('group-live-count')!.textContent).toBe('0 live of 2 members');
    expect(byId('group-empty')!.textContent).toMatch(/No live member\s*\(inferred from the group log: no member is live\)\. The next member to join starts a round/);
    expect(q('[data-testid="group-item-billing"] [data-testid="group-live"]')!.textContent).toBe('0 live');
    expect(q('[data-testid="group-item-billing"] [data-testid="group-state"]')!.textContent).toBe('empty');
  });
});

describe('the lag chart', () => {
  it('adds a sample at each refresh and keeps them while the app is open', async () => {
    await openGroup('billing');
    // The history from the files is the default; "live" shows the samples.
    await fireEvent.click(await waitFor('lag-span-live'));
    const chart = await waitFor('lag-chart');
    await until(() => Number(chart.dataset.samples) >= 1, 'a first sample');
    const before = Number(chart.dataset.samples);
    expect(chart.dataset.lastTotal).toBe('109');
    expect(qa('path[data-partition]', chart)).toHaveLength(5);
    // As the reset dialog confirms "latest" on P0: the end its dry run showed.
    await mock().backend().resetGroup('billing', { to: 'offsets', offset: null, time: null, shift: null, ago_secs: null, other_group: null, offsets: { '0': '81' }, file_group: null, file_topic: null, partitions: [0], dry_run: false, topic: 'orders' });
    // P0 caught up: its 38 are no longer lag.
    await until(() => byId('lag-chart')!.dataset.lastTotal === '71', 'a sample after the reset');
    expect(Number(byId('lag-chart')!.dataset.samples)).toBeGreaterThanOrEqual(before + 1);
    // Leaving and coming back keeps the history.
    await fireEvent.click(byId('topic-item-chat')!);
    await until(() => !byId('group-view'), 'left');
    await fireEvent.click(q('[data-testid="group-item-billing"] button')!);
    await until(() => Number(byId('lag-chart')?.dataset.samples) >= before + 2, 'history kept and a new sample');
    const d = byId('lag-chart-total')!.getAttribute('d')!;
    expect(d.startsWith('M')).toBe(true);
    expect((d.match(/V/g) ?? []).length).toBeGreaterThanOrEqual(before + 1);
  });
});

// The demo's members run in the backend; the mock steps through what the engine's
// group log said at each step of a recorded scene (recording.demos), so these
// tests check what the panel sends and how it shows the answers.
describe('the balancing demo', () => {
  it('splits partitions between two demo members, and gives them all to the survivor of a kill', async () => {
    render(App);
    await until(() => !!byId('topic-item-orders'), 'topics');
    await fireEvent.click(byId('topic-item-orders')!);
    await fireEvent.click(await waitFor('tab-groups'));
    await typeInto(await waitFor('demo-group-name'), 'pair');
    await typeInto(byId('demo-group-window')!, '150');
    await typeInto(byId('demo-group-rate')!, '0');
    await fireEvent.click(byId('demo-group-start')!);
    await until(() => q('[data-testid=group-view]')?.dataset.group === 'pair', 'the new group');
    expect(mock().calls.find((c) => c[0] === 'demoStartMember')).toEqual(['demoStartMember', 'orders', 'pair', 150, 0, false]);
    await until(() => mapText() === '0:1 1:1 2:1 3:1 4:1', 'one member holds everything');
    await typeInto(byId('demo-window')!, '150');
    await typeInto(byId('demo-rate')!, '0');
    await fireEvent.click(byId('demo-add')!);
    await until(() => allById('demo-member').length === 2 && allById('demo-member').every((m) => m.dataset.member !== '0'), 'two members');
    await until(() => allById('group-member').length === 2 && allById('group-map-cell').filter((c) => c.dataset.member === '2').length === 2, 'the split', 3000);
    expect(allById('group-map-cell').filter((c) => c.dataset.member === '1')).toHaveLength(3);
    expect(allById('group-member').every((m) => /demo · running/.test(m.textContent!))).toBe(true);
    expect(allById('external-member')).toHaveLength(0);

    // Kill member 2: nothing at once; after the next round member 1 holds every partition.
    const victim = allById('demo-member').find((m) => m.dataset.member === '2')!;
    await fireEvent.click(q('[data-testid=demo-kill]', victim)!);
    expect(mock().calls.filter((c) => c[0] === 'demoStopMember')).toEqual([['demoStopMember', victim.dataset.handle, true]]);
    await until(() => allById('demo-member').find((m) => m.dataset.member === '2')?.dataset.status === 'killed', 'killed status');
    // The member list says so too, not "live · seen just now" from the log until its silence shows.
    const listed = allById('group-member').find((m) => m.dataset.member === '2')!;
    expect(q('[data-testid=member-status]', listed)!.textContent).toBe('killed');
    expect(q('[data-testid=member-seen]', listed)!.textContent).toMatch(/^last seen /);
    await until(() => mapText() === '0:1 1:1 2:1 3:1 4:1', 'the survivor takes every partition', 3000);
    const kept = allById('demo-member').find((m) => m.dataset.member === '1')!;
    expect(kept.dataset.status).toBe('running');
    expect(q('[data-testid=demo-kill]', allById('demo-member').find((m) => m.dataset.member === '2')!)).toBeNull();

    // A graceful stop of the last one.
    await fireEvent.click(q('[data-testid=demo-stop]', kept)!);
    expect(mock().calls.filter((c) => c[0] === 'demoStopMember').at(-1)).toEqual(['demoStopMember', kept.dataset.handle, false]);
    await until(() => allById('demo-member').every((m) => m.dataset.status !== 'running'), 'all stopped');
    // The last member left: nobody holds a partition, and no round waits for one.
    await until(() => allById('group-member').length === 0, 'no members left');
    expect(allById('group-map-cell').map((c) => c.dataset.member)).toEqual(['', '', '', '', '']);
    expect(byId('round-banner')).toBeNull();
    expect(allById('demo-member').map((m) => m.dataset.status)).toEqual(['stopped', 'killed']);
  });

  it('lists demo members with their throughput, and external members marked as such', async () => {
    await openGroup('billing');
    expect(allById('external-member').map((m) => m.dataset.member)).toEqual(['1', '2']);
    expect(allById('external-member')[0].textContent).toMatch(/m1\s*twainmq CLI 0\.1\.0 on build-host, pid 4242\s*0, 2, 4/);
    await typeInto(byId('demo-window')!, '120');
    await typeInto(byId('demo-rate')!, '40');
    await fireEvent.click(byId('demo-add')!);
    await until(() => allById('demo-member')[0]?.dataset.status === 'running' && allById('demo-member')[0].dataset.member === '3', 'a running demo member');
    expect(mock().calls.find((c) => c[0] === 'demoStartMember')).toEqual(['demoStartMember', 'orders', 'billing', 120, 40, false]);
    // The status names it as the lists do (it said "member 1", its handle, for the one labelled m3).
    await until(() => app.status.includes('Started demo member m3 in billing'), 'the status naming m3');
    // It took a partition from the externals (3 members, 5 partitions).
    await until(() => allById('group-map-cell').some((c) => c.dataset.member === '3'), 'member 3 on the map', 3000);
    expect(allById('external-member').map((m) => m.dataset.member)).toEqual(['1', '2']);
    expect(allById('group-member').find((m) => m.dataset.member === '3')!.textContent).toMatch(/demo · running/);
    // A second later its sparkline has a point per second, and it consumed something.
    await until(() => (q('[data-testid=demo-sparkline]', allById('demo-member')[0])?.dataset.values ?? '') !== '', 'a sparkline', 2500);
    const values = q('[data-testid=demo-sparkline]', allById('demo-member')[0])!.dataset.values!.split(',').map(Number);
    expect(values.length).toBeGreaterThan(0);
    expect(values.every((v) => v === 40)).toBe(true); // the rate the backend reported, drawn as given
    expect(mock().calls.filter((c) => c[0] === 'demoMembers').length).toBeGreaterThan(2);
  });

  it('polls demo members only while the panel is open', async () => {
    await openGroup('billing');
    await fireEvent.click(byId('demo-toggle')!);
    expect(byId('demo-panel')).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    const n = mock().calls.filter((c) => c[0] === 'demoMembers').length;
    await new Promise((r) => setTimeout(r, 1200));
    expect(mock().calls.filter((c) => c[0] === 'demoMembers').length).toBe(n);
    await fireEvent.click(byId('demo-toggle')!);
    await new Promise((r) => setTimeout(r, 1100));
    expect(mock().calls.filter((c) => c[0] === 'demoMembers').length).toBeGreaterThanOrEqual(n + 2);
  });

  it('opens a round from outside with Start round', async () => {
    await openGroup('billing');
    await typeInto(byId('demo-window')!, '300');
    await fireEvent.click(byId('demo-round')!);
    expect(mock().calls.find((c) => c[0] === 'triggerRound')).toEqual(['triggerRound', 'billing', 300]);
    await waitFor('round-banner');
    await until(() => !byId('round-banner'), 'the round to end', 3000);
  });
});
