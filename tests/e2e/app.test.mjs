// The real app under Xvfb, driven through WebDriver: browse, jump, search,
// produce, live updates from another process, create/delete, and XSS as text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startApp, fixtureStore, cli, byId, until, shot, rows, setValue } from './harness.mjs';

let browser;
let store;

before(async () => {
  store = fixtureStore('browse');
  // A hostile payload, written by another process before the app starts.
  cli(store, 'produce', 'tiny', '--key', '9', '<img src=x onerror="window.__xss=1">');
  browser = await startApp(store);
});

after(async () => {
  await browser?.deleteSession();
});

test('opens the store given on the command line and lists its topics', async () => {
  const list = await byId(browser, 'topic-list');
  await list.waitForDisplayed({ timeout: 15000 });
  for (const t of ['bigmsgs', 'empty', 'events', 'names', 'sensors', 'tiny', 'typed']) {
    assert.ok(await byId(browser, `topic-item-${t}`).isExisting(), `topic ${t} listed`);
  }
  assert.ok(!(await byId(browser, 'topic-item---group--workers').isExisting()), 'groups are not topics');
  const title = await browser.getTitle();
  assert.match(title, /browse/);
  await shot(browser, '01-topics');
});

test('pages through messages and jumps to an offset', async () => {
  await (await byId(browser, 'topic-item-events')).click();
  const first = await until(browser, async () => (await rows(browser))[0], 'message rows');
  // All partitions: the topic's timeline, from its oldest message.
  const oldest = JSON.parse(cli(store, 'consume', 'events', '--by-time', '--json').split('\n')[0]);
  assert.equal(first.partition, String(oldest.partition));
  assert.equal(first.offset, String(oldest.offset));
  const shown = await rows(browser);
  assert.ok(shown.length > 5 && shown.length < 240, `a window of rows, not the whole log (${shown.length})`);
  await shot(browser, '02-messages');

  const part = await byId(browser, 'jump-offset-partition');
  await part.selectByAttribute('value', '2');
  await setValue(await byId(browser, 'jump-offset-input'), '40');
  await (await byId(browser, 'jump-offset-go')).click();
  await until(browser, async () => (await rows(browser)).some((r) => r.partition === '2' && r.offset === '40'), 'row 2/40 after the jump');
  await shot(browser, '03-jump');
});

test('searches the whole log with streamed results', async () => {
  await setValue(await byId(browser, 'search-input'), 'gamma');
  await (await byId(browser, 'search-go')).click();
  const hits = await until(
    browser,
    async () => {
      const r = await rows(browser);
      return r.length > 3 && r.every((x) => /gamma/i.test(x.text)) ? r : null;
    },
    'search hits',
  );
  assert.ok(hits.length > 3);
  await shot(browser, '04-search');
});

test('produces a message and shows where it landed', async () => {
  await (await byId(browser, 'tab-produce')).click();
  await setValue(await byId(browser, 'produce-key'), '4242');
  await setValue(await byId(browser, 'produce-body'), 'hello from the e2e test');
  await (await byId(browser, 'produce-send')).click();
  const result = await byId(browser, 'produce-result');
  await until(browser, async () => /partition\s*\d+.*offset\s*\d+/i.test(await result.getText()), 'produce result');
  await shot(browser, '05-produce');
  const out = cli(store, 'consume', 'events', '--json');
  assert.ok(out.includes('hello from the e2e test'), 'the message is in the log');
});

test('shows a message written by another process, live', async () => {
  await (await byId(browser, 'tab-messages')).click();
  const item = await byId(browser, 'topic-item-names');
  const before = await item.getText();
  cli(store, 'produce', 'names', '--key', 'live', 'written by the CLI');
  await until(browser, async () => (await item.getText()) !== before, 'sidebar count to change', 3000);
  await item.click();
  await setValue(await byId(browser, 'search-input'), 'written by the CLI');
  await (await byId(browser, 'search-go')).click();
  await until(browser, async () => (await rows(browser)).some((r) => r.text.includes('written by the CLI')), 'the live message');
  await shot(browser, '06-live');
});

test('renders a hostile payload as text', async () => {
  await (await byId(browser, 'topic-item-tiny')).click();
  await until(browser, async () => (await rows(browser)).some((r) => r.text.includes('<img src=x onerror=')), 'the payload as literal text');
  const injected = await browser.execute(() => ({ imgs: document.querySelectorAll('img[src="x"]').length, flag: window.__xss ?? null }));
  assert.deepEqual(injected, { imgs: 0, flag: null });
  await shot(browser, '07-xss-as-text');
});

test('creates and deletes a topic', async () => {
  await (await byId(browser, 'create-topic')).click();
  await setValue(await byId(browser, 'create-topic-name'), 'e2e_topic');
  await (await byId(browser, 'create-topic-key-type')).selectByAttribute('value', 'u32');
  await setValue(await byId(browser, 'create-topic-partitions'), '3');
  await shot(browser, '08-create');
  await (await byId(browser, 'create-topic-submit')).click();
  await (await byId(browser, 'topic-item-e2e_topic')).waitForExist({ timeout: 5000 });
  assert.ok(fs.existsSync(path.join(store, 'e2e_topic.twc')));
  await (await byId(browser, 'topic-item-e2e_topic')).click();
  await (await byId(browser, 'delete-topic')).click();
  await setValue(await byId(browser, 'delete-confirm-input'), 'e2e_topic');
  await (await byId(browser, 'delete-confirm-submit')).click();
  await (await byId(browser, 'topic-item-e2e_topic')).waitForExist({ reverse: true, timeout: 5000 });
  assert.ok(!fs.existsSync(path.join(store, 'e2e_topic.twc')));
  assert.ok(!fs.existsSync(path.join(store, 'e2e_topic')));
});
