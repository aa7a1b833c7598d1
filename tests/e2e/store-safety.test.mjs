// A store whose folder goes while it is open, and the store's health, in the real app:
// no "live" and no old totals once the folder is gone, back by itself when it returns; files
// cut short and twainmq check's findings where the user looks (screenshots dark and light).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startApp, fixtureStore, byId, until, shot, shotsBothThemes, cli, CLI, setValue } from './harness.mjs';

let browser;
let store;

before(async () => {
  store = fixtureStore('safety');
  browser = await startApp(store);
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
});

const text = async (id) => (await byId(browser, id)).getText();

/** A test whose failure leaves a screenshot of what was on screen. */
let failures = 0;
function step(name, fn) {
  test(name, async () => {
    try {
      await fn();
    } catch (e) {
      await shot(browser, `safety-failed-${++failures}`).catch(() => {});
      throw e;
    }
  });
}

step('a store folder moved away while open is shown as gone, and comes back by itself', async () => {
  assert.equal(await (await byId(browser, 'live-indicator')).getAttribute('data-live'), 'true');
  const away = `${store}-away`;
  fs.renameSync(store, away);
  try {
    await (await byId(browser, 'store-gone')).waitForDisplayed({ timeout: 10000 });
    assert.equal(await (await byId(browser, 'live-indicator')).getAttribute('data-live'), 'false');
    assert.equal(await text('live-indicator'), 'store gone');
    assert.match(await text('status-totals'), /^store gone/);
    assert.equal(await browser.$('[data-testid="topic-list"]').isExisting(), false, 'no old topics');
    assert.match(await text('store-gone-message'), /deleted, renamed or moved/);
    await shotsBothThemes(browser, 'safety-store-gone');
  } finally {
    fs.renameSync(away, store);
  }
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 10000 });
  assert.equal(await browser.$('[data-testid="store-gone"]').isExisting(), false);
  await until(browser, async () => (await (await byId(browser, 'live-indicator')).getAttribute('data-live')) === 'true', 'live again', 10000);
});

step('a partition cut short and garbage appended show in the store health, with check findings', async () => {
  const dir = path.join(store, 'events');
  const file = fs.readdirSync(dir).filter((f) => f.startsWith('1-')).sort()[0];
  const bytes = fs.readFileSync(path.join(dir, file));
  let nl = 0;
  let cut = bytes.length;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10 && ++nl === 3) { cut = i + 5; break; }
  fs.truncateSync(path.join(dir, file), cut);
  const other = fs.readdirSync(dir).filter((f) => f.startsWith('2-')).sort().pop();
  fs.appendFileSync(path.join(dir, other), 'garbage line\n');
  await until(browser, async () => (await (await byId(browser, 'store-health')).getAttribute('data-problems')) !== '0', 'the health count', 15000);
  assert.match(await text('store-health'), /⚠ 1 store problem/);
  await (await byId(browser, 'store-health')).click();
  assert.match(await text('health-shrunk'), new RegExp(`events · P1 · ${file.replace('.', '\\.')}: held [\\d,]+ messages, now 3`));
  await (await byId(browser, 'health-run-check')).click();
  await (await byId(browser, 'health-check-summary')).waitForDisplayed({ timeout: 15000 });
  const kinds = await browser.execute(() => [...document.querySelectorAll('[data-testid="health-kind"]')].map((e) => e.dataset.kind));
  assert.ok(kinds.includes('damaged_line'), kinds.join(','));
  await shotsBothThemes(browser, 'safety-store-health');
  await browser.keys('Escape');
});

/** Open a topic's Messages tab. */
async function openTopic(name) {
  await (await byId(browser, `topic-item-${name}`)).click();
  await (await byId(browser, 'tab-messages')).click();
}

step('an import says before where it stops, and a retry goes on from there writing nothing twice', async () => {
  const file = path.join(path.dirname(store), 'safety-import.jsonl');
  fs.writeFileSync(file, '{"key":1,"payload":"one"}\n{"key":2,"payload":"two"}\noops\n{"key":4,"payload":"four"}\n{"key":5,"payload":"five"}\n');
  cli(store, 'topics', 'create', 'inbox', '--partitions', '2');
  await until(browser, async () => browser.$('[data-testid="topic-item-inbox"]').isExisting(), 'inbox listed', 10000);
  await openTopic('inbox');
  await (await byId(browser, 'import-open')).click();
  await setValue(await byId(browser, 'import-path-input'), file);
  await (await byId(browser, 'import-check')).click();
  await (await byId(browser, 'import-report')).waitForDisplayed({ timeout: 10000 });
  assert.equal(await text('import-submit'), 'Import 2 messages, stop at line 3');
  assert.match(await text('import-stops-at'), /writes the 2 messages before line 3 and stops there/);
  await shotsBothThemes(browser, 'safety-import-before');
  await (await byId(browser, 'import-submit')).click();
  await (await byId(browser, 'import-error')).waitForDisplayed({ timeout: 10000 });
  assert.match(await text('import-resume-note'), /go on from line 3/);
  await (await byId(browser, 'import-skip-bad')).click();
  await (await byId(browser, 'import-check')).click();
  await (await byId(browser, 'import-passed-over')).waitForDisplayed({ timeout: 10000 });
  assert.equal(await text('import-submit'), 'Import 2 messages');
  await shotsBothThemes(browser, 'safety-import-resume');
  await (await byId(browser, 'import-submit')).click();
  await (await byId(browser, 'import-result')).waitForDisplayed({ timeout: 10000 });
  await browser.keys('Escape');
  assert.equal(JSON.parse(cli(store, 'topics', 'describe', 'inbox', '--json')).messages, 4, 'every good line once');
});

step('a commit past its partition end is flagged on the group page with what it means', async () => {
  // workers committed 26 on events P1: leave P1 with at most 10 messages.
  const dir = path.join(store, 'events');
  const p1 = fs.readdirSync(dir).filter((f) => f.startsWith('1-')).sort();
  for (const f of p1.slice(1)) fs.rmSync(path.join(dir, f));
  const first = path.join(dir, p1[0]);
  const lines = fs.readFileSync(first, 'latin1').split('\n').filter((l) => l !== '').slice(0, 10);
  fs.writeFileSync(first, Buffer.from(lines.join('\n') + '\n', 'latin1'));
  await (await byId(browser, 'group-item-workers')).$('button').click();
  await (await byId(browser, 'group-past-end')).waitForDisplayed({ timeout: 15000 });
  // (The earlier step left P1's first file cut short: what is left of it is what counts.)
  const m = /P1: committed 26, but the partition ends at (\d+): the next (\d+) messages written there will be skipped by this group/.exec(await text('group-past-end'));
  assert.ok(m, await text('group-past-end'));
  assert.equal(Number(m[1]) + Number(m[2]), 26);
  await shotsBothThemes(browser, 'safety-group-past-end');
});

step('deleting a group with a live member: the dialog says a 0.2.3 member crashes, and waits for "stopped"', async () => {
  const member = spawn(CLI, ['--store', store, 'consume', 'names', '--group', 'live-one', '--follow'], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await until(browser, async () => browser.$('[data-testid="group-item-live-one"]').isExisting(), 'the group listed', 15000);
    await (await byId(browser, 'group-item-live-one')).$('button').click();
    await until(browser, async () => (await browser.$$('[data-testid="group-member"][data-status="live"]')).length > 0, 'a live member', 15000);
    await (await byId(browser, 'group-delete')).click();
    await (await byId(browser, 'delete-group-live')).waitForDisplayed({ timeout: 10000 });
    assert.match(await text('delete-group-live'), /look(s)? live/);
    assert.doesNotMatch(await text('delete-group-live'), /makes the group again/);
    assert.equal(await browser.$('[data-testid="delete-group-confirm-input"]').isExisting(), false, 'no confirmation while it looks live');
    await shotsBothThemes(browser, 'safety-group-delete-live');
    await browser.keys('Escape');
  } finally {
    member.kill('SIGINT');
  }
});
