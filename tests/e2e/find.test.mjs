// Finding things in a log, in the real app: "All partitions" as one timeline
// (End is the topic's newest message; follow shows every partition's new
// messages interleaved), a CEL search with its running total, and a bad
// expression's error under the box.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, fixtureStore, cli, byId, until, shot, rows, setValue } from './harness.mjs';

let browser;
let store;

before(async () => {
  store = fixtureStore('find');
  browser = await startApp(store);
});

after(async () => {
  await browser?.deleteSession();
});

const byTime = () =>
  cli(store, 'consume', 'events', '--by-time', '--json')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

test('End shows the newest message of the topic across its partitions', async () => {
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 15000 });
  await (await byId(browser, 'topic-item-events')).click();
  await until(browser, async () => (await rows(browser)).length > 5, 'rows');
  const legend = await byId(browser, 'timeline-legend');
  assert.match(await legend.getText(), /one timeline, ordered by timestamp · 4 partitions/);
  const all = byTime();
  const first = (await rows(browser))[0];
  assert.deepEqual([first.partition, first.offset], [String(all[0].partition), String(all[0].offset)]);
  // Rows of several partitions side by side, in time order.
  assert.ok(new Set((await rows(browser)).map((r) => r.partition)).size > 1);
  await browser.execute(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  await browser.keys('End');
  const newest = all[all.length - 1];
  await until(browser, async () => {
    const r = await rows(browser);
    const last = r[r.length - 1];
    return last && last.partition === String(newest.partition) && last.offset === String(newest.offset);
  }, 'the newest message at the bottom');
  const range = await (await byId(browser, 'row-range')).getText();
  assert.match(range, /of 240 on the timeline$/);
  await shot(browser, '10-timeline-end');
});

test('following the tail shows every partition’s new messages, interleaved', async () => {
  await (await byId(browser, 'follow-toggle')).click();
  // Keys 1, 2 and 3 land in partitions 1, 2 and 0 (0.2.3's partitioner).
  const sent = [];
  for (const [i, k] of [1, 2, 3, 1, 2].entries()) {
    sent.push(JSON.parse(cli(store, 'produce', 'events', '--key', String(k), `tail ${i} from another process`, '--json')));
  }
  assert.ok(new Set(sent.map((s) => s.partition)).size >= 2, 'written to more than one partition');
  await until(browser, async () => (await rows(browser)).some((r) => r.text.includes('tail 4 from another process')), 'the new messages', 8000);
  const shown = (await rows(browser)).slice(-5);
  assert.deepEqual(
    shown.map((r) => `${r.partition}:${r.offset}`),
    sent.map((s) => `${s.partition}:${s.offset}`),
  );
  assert.deepEqual(shown.map((r) => r.text.match(/tail \d/)[0]), ['tail 0', 'tail 1', 'tail 2', 'tail 3', 'tail 4']);
  await shot(browser, '11-timeline-follow');
  await (await byId(browser, 'follow-toggle')).click();
});

test('a CEL search counts its matches and pages them into the table', async () => {
  const expr = 'partition == 2 && text.contains("gamma")';
  await setValue(await byId(browser, 'search-input'), expr);
  const badge = await byId(browser, 'filter-mode-badge');
  assert.equal(await badge.getText(), 'CEL');
  await (await byId(browser, 'search-go')).click();
  const progress = await byId(browser, 'search-progress');
  await until(browser, async () => (await progress.getAttribute('data-state')) === 'done', 'the search done', 8000);
  const count = await (await byId(browser, 'search-count')).getText();
  const m = /^([\d,]+) matches · 24[05] of 24[05] scanned$/.exec(count);
  assert.ok(m, count);
  const want = byTime().filter((x) => x.partition === 2 && JSON.stringify(x.payload).includes('gamma'));
  assert.equal(Number(m[1].replace(/,/g, '')), want.length);
  const hits = await until(browser, async () => {
    const r = await rows(browser);
    return r.length === Math.min(want.length, r.length) && r.length > 0 ? r : null;
  }, 'the hits');
  assert.ok(hits.every((r) => r.partition === '2' && /gamma/.test(r.text)));
  assert.deepEqual(hits.map((r) => r.offset), want.slice(0, hits.length).map((x) => String(x.offset)));
  await shot(browser, '12-cel-search');
  await (await byId(browser, 'search-clear')).click();
});

test('a bad expression is shown under the box with a caret, and nothing is searched', async () => {
  await setValue(await byId(browser, 'search-input'), 'value.qty >');
  const err = await byId(browser, 'filter-error');
  await err.waitForDisplayed({ timeout: 5000 });
  assert.match(await err.getText(), /line 1, column 12: Syntax error/);
  const caret = await (await byId(browser, 'filter-caret')).getText();
  assert.equal(caret.split('\n')[1].indexOf('^'), 11);
  assert.equal(await (await byId(browser, 'search-go')).isEnabled(), false);
  assert.equal(await (await byId(browser, 'search-banner')).isExisting(), false);
  await shot(browser, '13-filter-error');
});
