// A store whose folder goes while it is open, and the store's health, in the real app:
// no "live" and no old totals once the folder is gone, back by itself when it returns; files
// cut short and twainmq check's findings where the user looks (screenshots dark and light).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startApp, fixtureStore, byId, until, shot, shotsBothThemes } from './harness.mjs';

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
