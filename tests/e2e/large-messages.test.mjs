// Messages of any size and keys of any kind, in the real app: a 10 MB message opens at once
// (its first 64 KB), "Show all" reads the rest without holding the window, the table shows
// sizes, payload kinds and key kinds, and New Topic and Produce offer what such topics take.
// Times are printed (`large: ...`) and screenshots kept (artifacts/e2e/large-*-{dark,light}.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startApp, fixtureStore, cli, byId, until, rows, setValue, shotsBothThemes } from './harness.mjs';

const MB10 = 10 * 1024 * 1024;
let browser;
let store;

before(async () => {
  store = fixtureStore('large');
  cli(store, 'topics', 'create', 'blobs', '--key-type', 'any', '--max-message-bytes', String(16 * 1024 * 1024));
  cli(store, 'produce', 'blobs', '--key', 'user-42', '{"user":"ada","items":[{"sku":"A-1","qty":2}],"total":19.5}');
  cli(store, 'produce', 'blobs', '--key-hex', 'deadbeef', '--bytes-hex', '89504e470d0a1a0a0000000d49484452');
  cli(store, 'produce', 'blobs', '--no-key', 'a message without a key');
  // 10 MB of text lines, from a file.
  const file = path.join(path.dirname(store), 'ten-mb.txt');
  const line = 'line of a large message: alpha beta gamma delta epsilon zeta eta theta iota kappa\n';
  fs.writeFileSync(file, line.repeat(Math.ceil(MB10 / line.length)).slice(0, MB10));
  cli(store, 'produce', 'blobs', '--key', 'report', '--value-file', file);
  cli(store, 'produce', 'blobs', '--key', 'after', 'after the large one');
  browser = await startApp(store);
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
});

/** Start counting the longest gap between animation frames (the window held that long). */
const watchFrames = () =>
  browser.execute(() => {
    const w = window;
    w.__gap = 0;
    w.__watch = true;
    let last = performance.now();
    const step = (t) => {
      w.__gap = Math.max(w.__gap, t - last);
      last = t;
      if (w.__watch) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
const longestFrameGap = () => browser.execute(() => ((window.__watch = false), Math.round(window.__gap)));

test('a 10 MB message opens at once, shows all of it without holding the window, and the table says sizes and kinds', async () => {
  await (await byId(browser, 'topic-item-blobs')).click();
  await until(browser, async () => (await rows(browser)).length >= 5, 'rows of blobs', 10000);
  const shown = await browser.execute(() =>
    [...document.querySelectorAll('[data-testid="message-row"]')].map((r) => ({
      offset: r.getAttribute('data-offset'),
      kind: r.getAttribute('data-kind'),
      key: r.querySelector('[data-testid="message-key"]')?.textContent ?? null,
      payloadKind: r.querySelector('[data-testid="message-kind"]')?.textContent ?? null,
      size: r.querySelector('[data-testid="message-size"]')?.textContent ?? null,
    })),
  );
  const msgs = shown.filter((r) => r.kind !== 'part');
  assert.deepEqual(
    msgs.slice(0, 3).map((r) => [r.key, r.payloadKind]),
    [
      ['user-42', 'JSON'],
      ['0xdeadbeef', 'bytes'],
      ['null', 'text'],
    ],
  );
  assert.ok(shown.some((r) => r.kind === 'part'), 'the large message\'s other lines are part rows');
  const topicCount = await (await byId(browser, 'topic-line-count')).getText();
  assert.match(topicCount, /lines$/);
  // The large message is at its last line's offset, the next to last of the partition's.
  const lines = Number(topicCount.replace(/[^0-9]/g, ''));
  await setValue(await byId(browser, 'jump-offset-input'), String(lines - 2));
  await (await byId(browser, 'jump-offset-go')).click();
  const large = await until(
    browser,
    async () =>
      browser.execute((o) => {
        const r = document.querySelector(`[data-testid="message-row"][data-offset="${o}"]`);
        return r && { offset: o, key: r.querySelector('[data-testid="message-key"]')?.textContent, size: r.querySelector('[data-testid="message-size"]')?.textContent };
      }, String(lines - 2)),
    'the large message\'s row',
    10000,
  );
  assert.equal(large.key, 'report');
  assert.equal(large.size, '10.0 MB');
  await shotsBothThemes(browser, 'large-table');

  // Open it: the first 64 KB at once.
  await watchFrames();
  const t0 = Date.now();
  await (await browser.$(`[data-testid="message-row"][data-offset="${large.offset}"]`)).click();
  await until(browser, async () => /first 64\.0 KB of 10\.0 MB/.test(await (await byId(browser, 'detail-large-shown')).getText().catch(() => '')), 'the preview', 10000);
  const openMs = Date.now() - t0;
  const openGap = await longestFrameGap();
  await shotsBothThemes(browser, 'large-detail');

  // Show all: the rest, a slice at a time.
  await watchFrames();
  const t1 = Date.now();
  await (await byId(browser, 'detail-show-all')).click();
  await until(browser, async () => /^All 10\.0 MB shown/.test(await (await byId(browser, 'detail-large')).getText()), 'all of it', 60000, async () => (await byId(browser, 'detail-large')).getText());
  const allMs = Date.now() - t1;
  const allGap = await longestFrameGap();
  const length = await browser.execute(() => document.querySelector('[data-testid="detail-text"]')?.textContent?.length ?? 0);
  assert.equal(length, MB10);
  console.log(`large: open 10 MB message ${openMs} ms (longest frame gap ${openGap} ms); show all ${allMs} ms (longest frame gap ${allGap} ms)`);
  // The window answered meanwhile: a click on another row moves the selection at once.
  const t2 = Date.now();
  await (await browser.$(`[data-testid="message-row"][data-offset="${lines - 1}"]`)).click();
  await until(browser, async () => (await (await byId(browser, 'detail-text')).getText()) === 'after the large one', 'the next message', 10000);
  console.log(`large: after show all, the next row opened in ${Date.now() - t2} ms`);
  assert.ok(openMs < 3000, `opening took ${openMs} ms`);
});

test('New Topic offers key kinds and large messages; Produce takes keys as text, hex or none and a value from a file', async () => {
  await (await byId(browser, 'tab-produce')).click();
  await (await byId(browser, 'produce-key-as-hex')).waitForDisplayed({ timeout: 5000 });
  await (await byId(browser, 'produce-kind')).selectByAttribute('value', 'file');
  await shotsBothThemes(browser, 'large-produce');
  await (await byId(browser, 'create-topic')).click();
  await (await byId(browser, 'create-topic-key-type')).selectByAttribute('value', 'any');
  await (await byId(browser, 'create-topic-large')).click();
  await (await byId(browser, 'create-topic-next-format')).waitForDisplayed({ timeout: 5000 });
  await shotsBothThemes(browser, 'large-create-topic');
});

test('a filter on a field no message has says so and names the near one; a text search marks its matches', async () => {
  // The New Topic dialog of the test before: closed.
  await browser.keys('Escape');
  await until(browser, async () => !(await (await byId(browser, 'create-topic-dialog')).isExisting()), 'the dialog closed');
  await (await byId(browser, 'tab-messages')).click();
  await setValue(await byId(browser, 'search-input'), 'value.usr == "ada"');
  await (await byId(browser, 'search-go')).click();
  const said = await until(
    browser,
    async () => {
      const el = await byId(browser, 'search-missing-field');
      return (await el.isExisting()) && (await el.getText());
    },
    'the missing field',
    15000,
    async () => (await byId(browser, 'messages-empty')).getText(),
  );
  assert.match(said, /No message searched has the field value\.usr; did you mean value\.user\?/);
  assert.doesNotMatch(await (await byId(browser, 'messages-empty')).getText(), /match case/);
  await shotsBothThemes(browser, 'large-missing-field');
  await setValue(await byId(browser, 'search-input'), 'ada');
  await (await byId(browser, 'search-go')).click();
  const marks = await until(
    browser,
    async () => {
      const m = await browser.execute(() => [...document.querySelectorAll('[data-testid="search-mark"]')].map((x) => x.textContent));
      return m.length > 0 && m;
    },
    'marked matches',
    15000,
  );
  assert.ok(marks.every((m) => m.toLowerCase() === 'ada'), JSON.stringify(marks));
  assert.match(await (await byId(browser, 'row-range')).getText(), /^1–1 of 1 hit$/);
  await shotsBothThemes(browser, 'large-search-marks');
});
