// A group's health and its lag, in the real app under Xvfb: a group whose demo members were killed
// says so (stuck, then gone and empty once another member came and left); a
// lag alert fires and recovers, each with a desktop notification (the call
// observed in the webview); the lag history over a day of traffic made with
// the CLI (timestamps and commits spread over the day). Screenshots in dark
// and light.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startApp, fixtureStore, cli, byId, until, shot, setValue, CLI } from './harness.mjs';

let browser;
let store;

/** Run the CLI with its clock `offsetSecs` away from now (its test seam). */
function cliAt(offsetSecs, args, input) {
  return execFileSync(CLI, ['--store', store, ...args], {
    input,
    encoding: 'utf8',
    stdio: 'pipe',
    env: { ...process.env, TWAINMQ_CLOCK_OFFSET_SECS: String(offsetSecs) },
  });
}

/** `n` messages to `topic`, keys cycling over `keys`, stamped `offsetSecs` from now. */
function produceAt(offsetSecs, topic, n, keys = 4) {
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ key: i % keys, payload: `day #${i}` })).join('\n');
  cliAt(offsetSecs, ['produce', topic, '--jsonl'], lines + '\n');
}

async function attr(sel, name) {
  return browser.execute((s, n) => document.querySelector(s)?.getAttribute(n) ?? null, sel, name);
}

async function members(testid = 'group-member') {
  return browser.execute(
    (t) => [...document.querySelectorAll(`[data-testid="${t}"]`)].map((m) => ({ id: m.getAttribute('data-member'), status: m.getAttribute('data-status'), text: m.textContent })),
    testid,
  );
}

async function openGroup(name) {
  const item = await browser.$(`[data-testid="group-item-${name}"] button`);
  await item.waitForExist({ timeout: 15000 });
  await item.click();
  await until(browser, async () => (await attr('[data-testid="group-view"]', 'data-group')) === name, `the ${name} view`, 10000);
}

async function setTheme(want) {
  const theme = await byId(browser, 'theme-toggle');
  for (let i = 0; i < 3 && (await theme.getAttribute('data-theme')) !== want; i++) await theme.click();
  await browser.pause(400);
}

const groupState = () => attr('[data-testid="group-view-state"]', 'data-phase');

/** What the screen and the group log say about `group`: for a wait that timed out. */
async function groupSeen(group) {
  const demos = await browser.execute(() =>
    [...document.querySelectorAll('[data-testid="demo-member"]')].map((m) => `${m.getAttribute('data-handle')}:${m.getAttribute('data-status')}: ${m.textContent}`),
  );
  const demoError = await browser.execute(() => document.querySelector('[data-testid="demo-error"]')?.textContent ?? null);
  const addEnabled = await browser.execute(() => !document.querySelector('[data-testid="demo-add"]')?.disabled);
  let log;
  try {
    log = cli(store, 'groups', 'describe', group, '--json');
  } catch (e) {
    log = `describe failed: ${e}`;
  }
  let records;
  try {
    records = cli(store, 'consume', '--json', '--', `--group--${group}`)
      .trim()
      .split('\n')
      .map((l) => {
        const r = JSON.parse(l);
        return `${r.offset} k${r.key} ${r.timestamp.toFixed(3)} ${r.payload.class?.replace('~~TWAIN~~', '')} ${JSON.stringify(r.payload.fields)}`;
      });
  } catch (e) {
    records = `the group log could not be read: ${e}`;
  }
  const now = (Date.now() / 1000).toFixed(3);
  return JSON.stringify({ now, phase: await groupState(), members: await members(), former: await members('former-member'), demos, demoError, addEnabled, describe: log, records }, null, 1);
}

before(async () => {
  store = fixtureStore('group-lag-and-admin');
  // A day of traffic on `day`: 40 messages an hour, and a member of group
  // `daily` that reads some of them every six hours (commits and rounds along the day).
  cli(store, 'topics', 'create', 'day', '--partitions', '2');
  for (let h = 0; h < 24; h++) {
    const at = -(23.5 - h) * 3600;
    produceAt(at, 'day', 40);
    if (h % 6 === 0) cliAt(at + 60, ['consume', 'day', '--group', 'daily', '--max', '50', '--rebalance-window', '1', '--commit-every', '10']);
  }
  // A reset at noon (an admin commit: marked on the axis).
  cliAt(-11.5 * 3600, ['groups', 'reset', 'daily', '--to', 'shift:-20']);
  // A group for the alert, far behind on `events`.
  cli(store, 'consume', 'events', '--group', 'alerting', '--max', '1', '--rebalance-window', '1');
  browser = await startApp(store);
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 15000 });
});

after(async () => {
  await browser?.deleteSession();
});

test('killed demo members: the round they cannot end is stuck; after another member came and left they are gone and the group empty', async () => {
  await setTheme('dark');
  await (await byId(browser, 'topic-item-events')).click();
  await (await byId(browser, 'tab-groups')).click();
  await setValue(await byId(browser, 'demo-group-name'), 'e2e_gone');
  await setValue(await byId(browser, 'demo-group-window'), '800');
  await setValue(await byId(browser, 'demo-group-rate'), '25');
  await (await byId(browser, 'demo-group-start')).click();
  await openGroup('e2e_gone');
  await setValue(await byId(browser, 'demo-window'), '800');
  await setValue(await byId(browser, 'demo-rate'), '25');
  await (await byId(browser, 'demo-add')).click();
  await until(browser, async () => (await members()).filter((m) => m.status === 'live').length === 2, 'two live members', 20000, () => groupSeen('e2e_gone'));
  // Both killed: no commit, no goodbye.
  const handles = await browser.execute(() => [...document.querySelectorAll('[data-testid="demo-member"]')].map((m) => m.getAttribute('data-handle')));
  assert.equal(handles.length, 2);
  for (const h of handles) await (await browser.$(`[data-testid="demo-member"][data-handle="${h}"] [data-testid="demo-kill"]`)).click();
  await until(browser, async () => (await browser.execute(() => [...document.querySelectorAll('[data-testid="demo-member"]')].every((m) => m.getAttribute('data-status') === 'killed'))), 'killed', 10000);
  // A round from outside: no live member offers, nobody ends it.
  await (await byId(browser, 'demo-round')).click();
  await until(browser, async () => (await groupState()) === 'stuck', 'the group stuck', 20000, () => groupSeen('e2e_gone'));
  const banner = await (await byId(browser, 'round-banner')).getText();
  assert.match(banner, /stuck: the window closed .* no live member ended the round; the next member to join starts a new one/);
  assert.deepEqual((await members()).map((m) => m.status), ['stale', 'stale'], 'they owe the round an offer');
  assert.equal(await (await browser.$('[data-testid="group-item-e2e_gone"] [data-testid="group-live"]')).getText(), '0 live');
  await shot(browser, 'group-lag-01-stuck-dark');

  // A new member starts a round and takes every partition: the killed ones are former members.
  await (await byId(browser, 'demo-add')).click();
  await until(browser, async () => (await members('former-member')).length === 2, 'the killed members listed apart', 25000, () => groupSeen('e2e_gone'));
  assert.equal((await members()).length, 1);
  // It leaves cleanly: nobody is live, the group is empty.
  const stop = await browser.$('[data-testid="demo-member"][data-status="running"] [data-testid="demo-stop"]');
  await stop.click();
  await until(browser, async () => (await groupState()) === 'empty', 'the group empty', 20000, () => groupSeen('e2e_gone'));
  const former = await members('former-member');
  assert.equal(former.length, 3, JSON.stringify(former));
  assert.ok(former.every((m) => /gave it no partition|left/.test(m.text)), JSON.stringify(former));
  assert.ok(former.some((m) => /left/.test(m.text)), 'the member that stopped left');
  assert.match(await (await byId(browser, 'group-empty')).getText(), /No live member/);
  await browser.execute(() => document.querySelector('[data-testid="former-members"]')?.scrollIntoView({ block: 'center' }));
  await shot(browser, 'group-lag-02-gone-empty-dark');
  await setTheme('light');
  await shot(browser, 'group-lag-02-gone-empty-light');
  await setTheme('dark');
});

test('a lag alert fires and recovers, each with one desktop notification', async () => {
  await openGroup('alerting');
  // Observe the notification calls the plugin makes (it builds a window.Notification).
  await browser.execute(() => {
    window.__notes = [];
    const Orig = window.Notification;
    window.Notification = new Proxy(Orig, {
      construct(target, args) {
        window.__notes.push({ title: args[0], body: args[1]?.body ?? '' });
        return Reflect.construct(target, args);
      },
    });
  });
  // Each of events' four partitions is about 60 behind: over a threshold of 20.
  await setValue(await byId(browser, 'alert-max-lag'), '20');
  await (await byId(browser, 'alert-save')).click();
  await until(browser, async () => (await attr('[data-testid="lag-alerts"]', 'data-over')) === 'true', 'over the threshold', 15000);
  await (await browser.$('[data-testid="group-item-alerting"] [data-testid="group-alert"]')).waitForExist({ timeout: 5000 });
  const notes = await until(browser, async () => {
    const n = await browser.execute(() => window.__notes);
    return n.length >= 1 ? n : null;
  }, 'the crossing notification', 10000);
  assert.equal(notes.length, 1);
  assert.equal(notes[0].title, 'Group alerting is lagging');
  assert.match(notes[0].body, /over a threshold in \d+ partitions?: P\d \(lag \d+\)/);
  const crossed = await browser.execute(() => [...document.querySelectorAll('[data-testid="alert-event"]')].map((e) => `${e.getAttribute('data-kind')}:${e.getAttribute('data-notified')}`));
  assert.deepEqual(crossed, ['crossed:sent']);
  await shot(browser, 'group-lag-03-alert-dark');

  // Caught up by another process: the watcher tells the app, the next check (after the cooldown) says so once.
  cli(store, 'groups', 'reset', 'alerting', '--to', 'latest');
  await until(browser, async () => (await attr('[data-testid="lag-alerts"]', 'data-over')) === 'false', 'within again', 20000);
  const all = await until(browser, async () => {
    const n = await browser.execute(() => window.__notes);
    return n.length >= 2 ? n : null;
  }, 'the recovery notification', 30000);
  assert.deepEqual(all.map((n) => n.title), ['Group alerting is lagging', 'Group alerting caught up']);
  assert.equal(await (await browser.$('[data-testid="group-item-alerting"] [data-testid="group-alert"]')).isExisting(), false, 'the badge went');
  // No more: the state holds.
  await browser.pause(16000);
  assert.equal((await browser.execute(() => window.__notes)).length, 2, 'one notification each way');
  await setTheme('light');
  await shot(browser, 'group-lag-04-recovered-light');
  await setTheme('dark');
});

test('the lag history over a day of traffic, from the files, with rounds and resets marked', async () => {
  await openGroup('daily');
  await until(browser, async () => Number(await attr('[data-testid="lag-history"]', 'data-points')) > 0, 'the history', 15000);
  assert.equal(await attr('[data-testid="lag-history"]', 'data-span'), 'day');
  assert.equal(await attr('[data-testid="lag-history"]', 'data-points'), '240');
  // The last point is now: the lag the CLI reports.
  const lag = JSON.parse(cli(store, 'groups', 'lag', 'daily', '--json'));
  assert.equal(await attr('[data-testid="lag-history"]', 'data-last-total'), String(lag.total_lag));
  // What the CLI computes over the same day (the engine's history, both ways).
  const h = JSON.parse(cli(store, 'groups', 'lag', 'daily', '--history', '1d', '--json'));
  const kinds = await browser.execute(() => [...document.querySelectorAll('[data-testid="lag-mark"]')].map((m) => m.getAttribute('data-kind')));
  assert.deepEqual(kinds, h.marks.map((m) => m.kind));
  assert.ok(kinds.includes('round') && kinds.includes('reset'), JSON.stringify(kinds));
  // The day's shape: the lag grew with the traffic (no reading between the rounds).
  assert.ok(BigInt(await attr('[data-testid="lag-history"]', 'data-max')) > 100n);
  // The first member joined within the day: the part before is shaded.
  const since = Number(await attr('[data-testid="lag-history"]', 'data-since'));
  assert.ok(since > Date.now() / 1000 - 86400 && since < Date.now() / 1000 - 23 * 3600, String(since));
  await (await byId(browser, 'lag-history-before')).waitForExist();
  await (await byId(browser, 'lag-history-parts')).click();
  await browser.execute(() => document.querySelector('[data-testid="lag-history"]')?.scrollIntoView({ block: 'center' }));
  await shot(browser, 'group-lag-05-history-day-dark');
  await setTheme('light');
  await shot(browser, 'group-lag-05-history-day-light');
  await setTheme('dark');
  await (await byId(browser, 'lag-span-hour')).click();
  await until(browser, async () => (await attr('[data-testid="lag-history"]', 'data-span')) === 'hour' && (await attr('[data-testid="lag-history"]', 'data-points')) === '240', 'the last hour', 10000);
  await (await byId(browser, 'lag-span-all')).click();
  await until(browser, async () => (await attr('[data-testid="lag-history"]', 'data-span')) === 'all' && (await attr('[data-testid="lag-history"]', 'data-points')) === '240', 'all of it', 10000);
});

test('every reset mode reaches the dry run table; deleting a group lists what goes first', async () => {
  await openGroup('daily');
  await (await byId(browser, 'reset-open')).click();
  const target = await byId(browser, 'reset-target');
  for (const [mode, input, value] of [
    ['shift', 'reset-shift-input', '-5'],
    ['ago', 'reset-ago-input', '2h'],
  ]) {
    await target.selectByAttribute('value', mode);
    await setValue(await byId(browser, input), value);
    await (await byId(browser, 'reset-dry-run')).click();
    await until(browser, async () => (await browser.$$('[data-testid="reset-table"] [data-testid="reset-row"]')).length === 2, `the ${mode} table`, 10000);
  }
  await target.selectByAttribute('value', 'group');
  await (await byId(browser, 'reset-group-select')).waitForExist();
  await shot(browser, 'group-lag-06-reset-modes-dark');
  await browser.keys('Escape');

  await openGroup('alerting');
  await (await byId(browser, 'group-delete')).click();
  const summary = await byId(browser, 'delete-group-summary');
  await summary.waitForDisplayed({ timeout: 10000 });
  assert.match(await summary.getText(), /its log: \d+ records/);
  assert.equal(await (await byId(browser, 'delete-group-submit')).isEnabled(), false);
  await setValue(await byId(browser, 'delete-group-confirm-input'), 'alerting');
  await shot(browser, 'group-lag-07-delete-dark');
  await (await byId(browser, 'delete-group-submit')).click();
  await until(browser, async () => !(await (await browser.$('[data-testid="group-item-alerting"]')).isExisting()), 'the group gone', 10000);
  assert.throws(() => cli(store, 'groups', 'describe', 'alerting', '--json'), /alerting/);
});
