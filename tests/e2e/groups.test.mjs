// The real app under Xvfb: consumer groups. Demo members split a topic's
// partitions and heal the map after a kill; a reset goes through the dry run and
// lands in the group log (checked with the CLI); the raw line of a message; and
// closing the store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startApp, fixtureStore, cli, byId, until, shot, rows, setValue, CLI } from './harness.mjs';

let browser;
let store;

/** Write `n` messages to a topic in one CLI process (from standard input, one JSON a line). */
function produceMany(topic, n, from = 0) {
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ key: (from + i) % 60000, payload: `load #${from + i}` })).join('\n');
  execFileSync(CLI, ['--store', store, 'produce', topic, '--jsonl'], { input: lines + '\n', encoding: 'utf8', stdio: 'pipe' });
}

/** The map as "partition:member" pairs, in partition order. */
async function map() {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="group-map-cell"]')].map((c) => `${c.getAttribute('data-partition')}:${c.getAttribute('data-member')}`).join(' '),
  );
}

async function demoMembers() {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="demo-member"]')].map((m) => ({
      handle: m.getAttribute('data-handle'),
      member: m.getAttribute('data-member'),
      status: m.getAttribute('data-status'),
    })),
  );
}

async function openGroupFromSidebar(name) {
  const item = await browser.$(`[data-testid="group-item-${name}"] button`);
  await item.waitForExist({ timeout: 10000 });
  await item.click();
  await until(browser, async () => (await browser.execute(() => document.querySelector('[data-testid="group-view"]')?.getAttribute('data-group'))) === name, `the ${name} view`, 10000);
  await until(browser, async () => (await browser.$$('[data-testid="group-offsets-row"]')).length > 0, 'offsets', 10000);
}

before(async () => {
  store = fixtureStore('groups');
  // Enough to keep slow demo members busy for the whole test.
  produceMany('events', 2000);
  browser = await startApp(store);
});

after(async () => {
  await browser?.deleteSession();
});

test('lists the groups on a topic, 0.2.3 ones included', async () => {
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 15000 });
  await (await byId(browser, 'topic-item-events')).click();
  await (await byId(browser, 'tab-groups')).click();
  const names = await until(
    browser,
    async () => {
      const g = await browser.execute(() => [...document.querySelectorAll('[data-testid="topic-group-row"]')].map((r) => r.getAttribute('data-group')));
      return g.length >= 2 ? g : null;
    },
    'the groups of events',
    10000,
  );
  assert.deepEqual(names, ['tail', 'workers']);
  await shot(browser, 'groups-00-topic-groups');
});

test('two demo members split the partitions; after a kill the survivor holds them all', async () => {
  await setValue(await byId(browser, 'demo-group-name'), 'e2e_demo');
  await setValue(await byId(browser, 'demo-group-window'), '800');
  await setValue(await byId(browser, 'demo-group-rate'), '25');
  await (await byId(browser, 'demo-group-start')).click();
  await until(browser, async () => (await map()) === '0:1 1:1 2:1 3:1', 'the first member to take every partition', 15000);

  await setValue(await byId(browser, 'demo-window'), '800');
  await setValue(await byId(browser, 'demo-rate'), '25');
  await (await byId(browser, 'demo-add')).click();
  const split = await until(
    browser,
    async () => {
      const m = await map();
      const owners = m.split(' ').map((x) => x.split(':')[1]);
      const ones = owners.filter((o) => o === '1').length;
      const twos = owners.filter((o) => o === '2').length;
      return ones === 2 && twos === 2 ? m : null;
    },
    'the split: two partitions each',
    15000,
  );
  assert.equal(split.split(' ').length, 4);
  // Let the sparklines draw a few seconds of throughput.
  await browser.pause(3500);
  await shot(browser, 'groups-01-split');

  const members = await demoMembers();
  assert.equal(members.length, 2);
  const victim = members.find((m) => m.member === '2');
  await (await browser.$(`[data-testid="demo-member"][data-handle="${victim.handle}"] [data-testid="demo-kill"]`)).click();
  await until(browser, async () => (await demoMembers()).find((m) => m.handle === victim.handle)?.status === 'killed', 'killed', 10000);
  // Demo members open a round every five windows: within about 5 s the map heals.
  await until(browser, async () => (await map()) === '0:1 1:1 2:1 3:1', 'the survivor to hold every partition', 15000);
  await shot(browser, 'groups-02-after-kill');
  const history = await browser.execute(() => document.querySelector('[data-testid="round-history"]')?.textContent ?? '');
  assert.match(history, /m1 → 0–3/);
});

test('looks right in the light and dark themes', async () => {
  const theme = await byId(browser, 'theme-toggle');
  for (let i = 0; i < 3 && (await theme.getAttribute('data-theme')) !== 'light'; i++) await theme.click();
  await browser.pause(600);
  await shot(browser, 'groups-03-light');
  for (let i = 0; i < 3 && (await theme.getAttribute('data-theme')) !== 'dark'; i++) await theme.click();
  await browser.pause(600);
  await shot(browser, 'groups-03-dark');
});

test('resets a group\'s offsets through the dry run, and the group log has them', async () => {
  const before = JSON.parse(cli(store, 'groups', 'describe', 'workers', '--json'));
  assert.deepEqual(before.committed, { 0: 7, 1: 26, 2: 25, 3: 7 });
  await openGroupFromSidebar('workers');
  await (await byId(browser, 'reset-open')).click();
  await (await byId(browser, 'reset-target')).selectByAttribute('value', 'offset');
  await setValue(await byId(browser, 'reset-offset-input'), '3');
  await (await byId(browser, 'reset-scope-chosen')).click();
  await (await browser.$('[data-testid="reset-partition"][data-partition="0"]')).click();
  assert.equal(await (await byId(browser, 'reset-confirm')).isEnabled(), false, 'no confirm before the dry run');
  await (await byId(browser, 'reset-dry-run')).click();
  await (await byId(browser, 'reset-table')).waitForDisplayed({ timeout: 10000 });
  const planned = await browser.execute(() =>
    [...document.querySelectorAll('[data-testid="reset-table"] [data-testid="reset-row"]')].map((r) => `${r.getAttribute('data-partition')}:${r.getAttribute('data-before')}→${r.getAttribute('data-after')}`),
  );
  assert.deepEqual(planned, ['0:7→3']);
  assert.match(await (await byId(browser, 'reset-table')).getText(), /replays 4/);
  // Member 1 (a 0.2.3 member) still holds the partitions in the log: warned.
  assert.match(await (await byId(browser, 'reset-live-warning')).getText(), /Member 1 holds partitions: their next commit overrides this reset/);
  await shot(browser, 'groups-04-reset-dry-run');
  // The dry run wrote nothing.
  assert.deepEqual(JSON.parse(cli(store, 'groups', 'describe', 'workers', '--json')).committed, before.committed);

  await (await byId(browser, 'reset-confirm')).click();
  await (await byId(browser, 'reset-result')).waitForDisplayed({ timeout: 10000 });
  await shot(browser, 'groups-05-reset-applied');
  const after = JSON.parse(cli(store, 'groups', 'describe', 'workers', '--json'));
  assert.deepEqual(after.committed, { 0: 3, 1: 26, 2: 25, 3: 7 });
  await (await byId(browser, 'reset-done')).click();
  await until(
    browser,
    async () => (await browser.execute(() => document.querySelector('[data-testid="group-offsets-row"][data-partition="0"]')?.getAttribute('data-committed'))) === '3',
    'the offsets table to show the new commit',
    10000,
  );
});

test('resets every partition to the earliest offset', async () => {
  await (await byId(browser, 'reset-open')).click();
  await (await byId(browser, 'reset-target')).selectByAttribute('value', 'earliest');
  await (await byId(browser, 'reset-dry-run')).click();
  await (await byId(browser, 'reset-table')).waitForDisplayed({ timeout: 10000 });
  await (await byId(browser, 'reset-confirm')).click();
  await (await byId(browser, 'reset-result')).waitForDisplayed({ timeout: 10000 });
  await (await byId(browser, 'reset-done')).click();
  const after = JSON.parse(cli(store, 'groups', 'describe', 'workers', '--json'));
  assert.deepEqual(after.committed, { 0: 0, 1: 0, 2: 0, 3: 0 });
});

test('shows a topic\'s throughput while another process writes', async () => {
  await (await byId(browser, 'topic-item-names')).click();
  await (await byId(browser, 'tab-partitions')).click();
  let n = 0;
  const writer = setInterval(() => {
    try {
      const lines = Array.from({ length: 10 }, () => JSON.stringify({ key: `k${n % 7}`, payload: `tick ${n++}` })).join('\n');
      execFileSync(CLI, ['--store', store, 'produce', 'names', '--jsonl'], { input: lines + '\n', stdio: 'pipe' });
    } catch {
      /* the next tick tries again */
    }
  }, 250);
  try {
    await until(browser, async () => Number(await (await byId(browser, 'topic-rate')).getAttribute('data-rate')) > 5, 'a rate above 5 msg/s', 10000);
    await browser.pause(2000);
    await shot(browser, 'groups-06-topic-throughput');
  } finally {
    clearInterval(writer);
  }
});

test('shows a message\'s raw line with its file and line number', async () => {
  await (await byId(browser, 'topic-item-events')).click();
  await (await byId(browser, 'tab-messages')).click();
  await until(browser, async () => (await rows(browser))[0], 'rows', 10000);
  await (await browser.$('[data-testid="message-row"][data-partition="0"][data-offset="2"]')).doubleClick();
  const text = (id) => browser.execute((i) => document.querySelector(`[data-testid="${i}"]`)?.textContent ?? '', id);
  const file = await until(browser, async () => await text('detail-raw-file'), 'the raw line', 10000);
  assert.equal(file, '0-20261127_0.tmf:3');
  const raw = await text('detail-raw-text');
  assert.ok(raw.length > 20 && !/\s/.test(raw), `a raw line: ${raw}`);
  await shot(browser, 'groups-07-raw-line');
});

test('closes the store: demo members stop, and the welcome screen returns', async () => {
  const before = JSON.parse(cli(store, 'groups', 'describe', 'e2e_demo', '--json'));
  await (await byId(browser, 'store-path')).click();
  await (await byId(browser, 'menu-close-store')).click();
  await (await byId(browser, 'welcome')).waitForDisplayed({ timeout: 10000 });
  // The demo member still running committed and left when the store closed.
  await until(browser, async () => JSON.parse(cli(store, 'groups', 'describe', 'e2e_demo', '--json')).records > before.records, 'its last records', 10000);
  // Their last writes asked for store summaries while the close was under way: answered
  // after it, none may bring the closed store's view back.
  await browser.pause(1500);
  assert.equal(await (await byId(browser, 'welcome')).isDisplayed(), true, 'the welcome screen stays');
  assert.equal(await browser.execute(() => document.querySelector('[data-testid="store-path"] .p')?.textContent ?? ''), '', 'no store shown');
  await shot(browser, 'groups-08-closed');
});
