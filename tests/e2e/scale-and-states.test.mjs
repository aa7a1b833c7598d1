// Big stores and truthful screens, in the real app: a 5,000-topic store's
// sidebar (time to render and to filter, measured in the page), a
// 1,000-partition topic's Partitions tab, the not-a-store messages and the
// explicit "Create a store here", typed messages decoded. Screenshots in dark
// and light go to artifacts/e2e/scale-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApp, fixtureStore, cli, CLI, byId, until, shot, rows, setValue, setTheme, shotsBothThemes } from './harness.mjs';

const WORK = process.env.E2E_WORK ?? fs.mkdtempSync(path.join(os.tmpdir(), 'twainmq-e2e16-'));
const TOPICS = 5000;
const PARTS = 1000;
let browser = null;

after(async () => {
  await browser?.deleteSession().catch(() => {});
});

async function relaunch(arg) {
  await browser?.deleteSession().catch(() => {});
  browser = await startApp(arg);
  return browser;
}

/** Produce `n` JSON lines into `topic` with one CLI process. */
async function seed(store, topic, n) {
  const child = spawn(CLI, ['--store', store, 'produce', topic, '--jsonl', '--batch'], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let s = '';
  // Keys spread over the partitions, a few hot ones for a visible skew.
  for (let k = 0; k < n; k++) s += `{"key":${k % 7 === 0 ? 42 : k},"payload":${JSON.stringify(JSON.stringify({ id: k }))}}\n`;
  child.stdin.end(s);
  assert.equal(await exited, 0, `seeding ${topic}`);
}

function manyTopicStore() {
  const store = path.join(WORK, 'many');
  fs.rmSync(store, { recursive: true, force: true });
  fs.mkdirSync(store, { recursive: true });
  // One topic made by the CLI, its config copied for the others (5,000 CLI runs take long).
  cli(store, 'topics', 'create', 'svc-0000.events', '--key-type', 'u32', '--partitions', '1');
  const config = fs.readFileSync(path.join(store, 'svc-0000.events.twc'));
  for (let i = 1; i < TOPICS; i++) {
    const name = `svc-${String(i).padStart(4, '0')}.events`;
    fs.writeFileSync(path.join(store, `${name}.twc`), config);
    fs.mkdirSync(path.join(store, name));
  }
  cli(store, 'topics', 'create', 'wide', '--key-type', 'u32', '--partitions', String(PARTS));
  return store;
}

test('a 5,000-topic store: the sidebar renders a window, filters as you type, keeps the groups reachable', async () => {
  const store = manyTopicStore();
  await seed(store, 'wide', 6000);
  // Consumer groups reading the wide topic (each member reads one message, commits and leaves).
  // Only a few: describing a group of a 1,000-partition topic takes about 1.5 s in a debug build.
  for (let g = 0; g < 3; g++) cli(store, 'consume', 'wide', '--group', `billing-${String(g).padStart(2, '0')}`, '--max', '1', '--rebalance-window', '0.2');
  const t0 = performance.now();
  await relaunch(store);
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 60000 });
  await until(browser, async () => (await (await byId(browser, 'topics-count')).getText()) === '5,001', 'all topics counted', 60000);
  const openMs = performance.now() - t0;
  const rendered = await browser.execute(() => document.querySelectorAll('[data-testid="topic-list"] [role="option"]').length);
  assert.ok(rendered > 5 && rendered < 120, `only a window of rows is in the DOM (${rendered})`);
  // The groups section is on screen without scrolling the topics.
  const groupsTop = await browser.execute(() => document.querySelector('[data-testid="groups-section"]').getBoundingClientRect().top);
  assert.ok(groupsTop > 0 && groupsTop < (await browser.execute(() => window.innerHeight)) - 100, `groups on screen (${groupsTop}px)`);
  assert.equal(await (await byId(browser, 'groups-count')).getText(), '3');
  assert.ok(await (await byId(browser, 'group-item-billing-00')).isDisplayed(), 'the first group is on screen');

  // Rendering the whole list again and one filter keystroke, timed in the page (to the next frame).
  const times = await browser.executeAsync((done) => {
    const input = document.querySelector('[data-testid="sidebar-filter"]');
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const type = async (v) => {
      const t = performance.now();
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await frame();
      return performance.now() - t;
    };
    (async () => {
      const filter = await type('svc-12');
      const clear = await type('');
      const one = await type('wide');
      done({ filter, clear, one });
    })();
  });
  console.log(
    `5,000 topics: open to sidebar ${Math.round(openMs)} ms (WebDriver, app start included); ` +
      `filter keystroke ${times.filter.toFixed(1)} ms, clearing (all 5,001 back) ${times.clear.toFixed(1)} ms, ` +
      `"wide" ${times.one.toFixed(1)} ms (in the page, to the next frame)`,
  );
  assert.ok(times.filter < 1000 && times.clear < 1000, 'a keystroke answers within a second');
  assert.equal(await (await byId(browser, 'topics-count')).getText(), '1 of 5,001');
  await setValue(await byId(browser, 'sidebar-filter'), 'svc-12');
  await until(browser, async () => (await (await byId(browser, 'topics-count')).getText()) === '100 of 5,001', 'filtered count');
  assert.equal(await (await byId(browser, 'groups-count')).getText(), '0 of 3');
  await shotsBothThemes(browser, 'scale-5000-topics-filtered');
  await setValue(await byId(browser, 'sidebar-filter'), 'no-such-thing');
  await (await byId(browser, 'filter-empty')).waitForDisplayed();
  assert.match(await (await byId(browser, 'filter-empty')).getText(), /No topic or group name contains “no-such-thing”/);
  // Escape in the box clears it.
  await (await byId(browser, 'sidebar-filter')).click();
  await browser.keys(['Escape']);
  await until(browser, async () => (await (await byId(browser, 'topics-count')).getText()) === '5,001', 'all back');
  // Scrolled to the middle: the rows there are rendered.
  await browser.execute(() => {
    const v = document.querySelector('[data-testid="topic-list"]').parentElement;
    v.scrollTop = v.scrollHeight / 2;
  });
  await until(browser, async () => (await browser.$('[data-testid="topic-item-svc-2500.events"]').isExisting()), 'the middle rows', 5000);
  await shotsBothThemes(browser, 'scale-5000-topics');
});

test('a 1,000-partition topic: the Partitions tab sums up, sorts, and renders a window', async () => {
  await setValue(await byId(browser, 'sidebar-filter'), 'wide');
  // The groups reading it match too.
  await until(browser, async () => (await (await byId(browser, 'groups-count')).getText()) === '3 of 3', 'the groups on wide');
  await (await byId(browser, 'topic-item-wide')).click();
  await (await browser.$('[data-testid="tab-partitions"]')).click();
  await (await byId(browser, 'partition-summary')).waitForDisplayed({ timeout: 30000 });
  const summary = await (await byId(browser, 'partition-summary')).getText();
  assert.match(summary, /1,000 partitions/);
  assert.match(summary, /6,000 messages/);
  assert.match(await (await byId(browser, 'partition-minmax')).getText(), /min \d[\d,]* \(P\d+\) · max [\d,]+ \(P\d+\)/);
  assert.match(await (await byId(browser, 'partition-skew')).getText(), /skew \d+\.\d\d×/);
  const shown = () => browser.execute(() => [...document.querySelectorAll('[data-testid="partition-row"]')].map((r) => Number(r.dataset.partition)));
  assert.ok((await shown()).length < 100, 'a window of rows');
  await (await byId(browser, 'sort-messages')).click();
  const hot = (await shown())[0];
  const max = /max [\d,]+ \(P(\d+)\)/.exec(await (await byId(browser, 'partition-minmax')).getText());
  assert.equal(String(hot), max[1], 'sorted by messages, the fullest first');
  await shotsBothThemes(browser, 'scale-1000-partitions');
});

test('a 1,000-partition topic as one timeline: its first row, End at its newest message, a jump to a time', async () => {
  const store = path.join(WORK, 'many');
  const all = cli(store, 'consume', 'wide', '--by-time', '--json')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  assert.equal(all.length, 6000);
  const at = (m) => `${m.partition}:${m.offset}`;
  const order = new Map(all.map((m, i) => [at(m), i]));
  /** The rows in the DOM are one run of the CLI's timeline, in its order: their first index in it. */
  const slice = async () => {
    const r = (await rows(browser)).map((x) => `${x.partition}:${x.offset}`);
    const i = order.get(r[0]);
    assert.ok(i !== undefined, `row ${r[0]} is on the CLI's timeline`);
    assert.deepEqual(r, all.slice(i, i + r.length).map(at), 'the rows follow the timeline');
    return { first: i, last: i + r.length - 1 };
  };
  await (await byId(browser, 'tab-messages')).click();
  const legend = await byId(browser, 'timeline-legend');
  await legend.waitForDisplayed({ timeout: 20000 });
  assert.match(await legend.getText(), /one timeline, ordered by timestamp · 1,000 partitions/);
  await until(browser, async () => (await rows(browser)).length > 5, 'rows', 20000);
  assert.equal((await slice()).first, 0, 'the first row is the oldest message');
  assert.match(await (await byId(browser, 'row-range')).getText(), /of 6,000 on the timeline$/);

  await browser.execute(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await browser.keys('End');
  await until(browser, async () => {
    const r = await rows(browser);
    return r.length > 0 && `${r[r.length - 1].partition}:${r[r.length - 1].offset}` === at(all[all.length - 1]);
  }, 'the newest message at the bottom', 20000);
  assert.equal((await slice()).last, all.length - 1);
  await shotsBothThemes(browser, 'scale-1000-partitions-end');

  // A time in the middle, to the millisecond (as typed): the first message at or after it, by the CLI.
  const iso = new Date(all[3000].timestamp * 1000).toISOString();
  const want = JSON.parse(cli(store, 'consume', 'wide', '--by-time', '--from', iso, '--max', '1', '--json').split('\n')[0]);
  await setValue(await byId(browser, 'jump-time-input'), iso);
  await (await byId(browser, 'jump-time-go')).click();
  await until(browser, async () => (await rows(browser)).some((r) => `${r.partition}:${r.offset}` === at(want)), `row ${at(want)} after the jump`, 20000);
  // Every row is filled in (none left as a placeholder), and they follow the timeline around it.
  await until(browser, () => browser.execute(() => document.querySelectorAll('[data-testid="message-row-pending"]').length === 0), 'the rows read', 10000);
  const around = await slice();
  assert.ok(around.first <= order.get(at(want)) && order.get(at(want)) <= around.last);
  await shotsBothThemes(browser, 'scale-1000-partitions-jump');
});

test('a folder that holds no store says so, and makes one only when asked', async () => {
  const empty = path.join(WORK, 'empty-folder');
  fs.rmSync(empty, { recursive: true, force: true });
  fs.mkdirSync(empty);
  await relaunch(empty);
  const err = await byId(browser, 'welcome-error');
  await err.waitForDisplayed({ timeout: 30000 });
  assert.match(await err.getText(), /empty folder, not a TwainMQ store yet/);
  assert.ok(!(await browser.$('[data-testid="topic-list"]').isExisting()), 'no live, empty store is shown');
  assert.deepEqual(fs.readdirSync(empty), [], 'nothing was written');
  await shotsBothThemes(browser, 'scale-empty-folder');
  await (await byId(browser, 'create-store-here')).click();
  await (await byId(browser, 'topic-list')).waitForExist({ timeout: 30000 });
  assert.match(await (await browser.$('nav.sidebar')).getText(), /No topics yet/);

  const other = path.join(WORK, 'projects');
  fs.mkdirSync(path.join(other, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(other, 'README.txt'), 'not a store');
  fs.mkdirSync(path.join(other, 'orders-store'));
  cli(path.join(other, 'orders-store'), 'topics', 'create', 'orders', '--key-type', 'u32', '--partitions', '1');
  await relaunch(other);
  const err2 = await byId(browser, 'welcome-error');
  await err2.waitForDisplayed({ timeout: 30000 });
  assert.match(await err2.getText(), /holds no TwainMQ store.*orders-store holds one/s);
  assert.ok(!(await browser.$('[data-testid="create-store-here"]').isExisting()), 'no store is offered among other files');
  await shotsBothThemes(browser, 'scale-not-a-store');

  await relaunch(path.join(WORK, 'no-such-folder'));
  const err3 = await byId(browser, 'welcome-error');
  await err3.waitForDisplayed({ timeout: 30000 });
  assert.match(await err3.getText(), /there is no folder at .*no-such-folder/);
  assert.ok(!fs.existsSync(path.join(WORK, 'no-such-folder')), 'nothing was created');
});

test('typed messages show their text decoded in the table and in Fields, dates with the year', async () => {
  const store = fixtureStore('typed16');
  await relaunch(store);
  await (await byId(browser, 'topic-item-typed')).waitForDisplayed({ timeout: 30000 });
  await (await byId(browser, 'topic-item-typed')).click();
  await until(browser, async () => (await rows(browser)).some((r) => r.text.includes('ünïcödé')), 'decoded rows', 30000);
  const all = (await rows(browser)).map((r) => r.text).join('\n');
  assert.doesNotMatch(all, /\\u00fc|\\ud83d/);
  assert.match(all, /\b20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\b/, 'the table shows the year');
  const row = await browser.$('[data-testid="message-row"]*=ünïcödé');
  await row.doubleClick();
  await (await byId(browser, 'detail-tab-fields')).click();
  const fields = await (await byId(browser, 'detail-fields')).getText();
  assert.match(fields, /ünïcödé/);
  assert.doesNotMatch(fields, /\\u00fc/);
  await shotsBothThemes(browser, 'scale-typed-decoded');
  await (await byId(browser, 'detail-tab-hex')).click();
  const overflow = await browser.execute(() => {
    const c = document.querySelector('[data-testid="detail-hex"]').parentElement;
    return c.scrollWidth - c.clientWidth;
  });
  assert.ok(overflow <= 1, `no sideways scroll in the hex view (${overflow}px)`);
  await shotsBothThemes(browser, 'scale-hex');
});
