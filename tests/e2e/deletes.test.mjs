// Deleting topics: the delete dialog lists the consumer groups that go
// with the topic, and a topic deleted, or deleted and made again, by another
// process is never shown as if it were still there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startApp, fixtureStore, cli, byId, until, shot, rows, setValue } from './harness.mjs';

let browser;
let store;

before(async () => {
  store = fixtureStore('deletes');
  browser = await startApp(store);
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 15000 });
});

after(async () => {
  await browser?.deleteSession();
});

test('the delete dialog lists the groups that read the topic, and they go with it', async () => {
  await (await byId(browser, 'topic-item-events')).click();
  await until(browser, async () => (await rows(browser)).length > 0, 'rows of events');
  await (await byId(browser, 'delete-topic')).click();
  const listed = await until(
    browser,
    async () => {
      const names = await browser.execute(() => [...document.querySelectorAll('[data-testid="delete-group"]')].map((e) => e.textContent));
      return names.length > 0 ? names : null;
    },
    'the groups listed',
  );
  // Both fixture groups were made by 0.2.3 for events (the only topic of 4 partitions).
  assert.deepEqual(listed, ['tail', 'workers']);
  const text = await (await byId(browser, 'delete-groups')).getText();
  assert.match(text, /These 2 consumer groups read events and are deleted with it/);
  assert.match(text, /committed offsets would otherwise apply to a new topic made under the same name/);
  await setValue(await byId(browser, 'delete-confirm-input'), 'events');
  await shot(browser, '20-delete-dialog-groups');
  await (await byId(browser, 'delete-confirm-submit')).click();
  await (await byId(browser, 'topic-item-events')).waitForExist({ reverse: true, timeout: 5000 });
  for (const g of ['tail', 'workers']) {
    await (await byId(browser, `group-item-${g}`)).waitForExist({ reverse: true, timeout: 5000 });
    assert.ok(!fs.existsSync(path.join(store, `--group--${g}.twc`)), `group ${g}'s config is gone`);
  }
  assert.equal(cli(store, 'groups', 'list').trim(), '');
});

test('a topic deleted by another process is shown as deleted, then as made again', async () => {
  await (await byId(browser, 'topic-item-names')).click();
  await until(browser, async () => (await rows(browser)).length > 0, 'rows of names');
  cli(store, 'topics', 'delete', 'names', '--yes');
  const gone = await byId(browser, 'topic-deleted');
  await gone.waitForDisplayed({ timeout: 5000 });
  assert.match(await gone.getText(), /Topic names was deleted by another process\. Its messages are gone from disk, so none are shown\./);
  assert.equal((await rows(browser)).length, 0, 'no row of the deleted topic is shown');
  await shot(browser, '21-topic-deleted');

  // Made again with another partition count and one new message: the new topic, said so.
  cli(store, 'topics', 'create', 'names', '--key-type', 'char8', '--partitions', '3');
  cli(store, 'produce', 'names', '--key', 'again', 'the new names topic');
  const note = await byId(browser, 'topic-remade');
  await note.waitForDisplayed({ timeout: 5000 });
  assert.match(await note.getText(), /Topic names was deleted and made again by another process \(now 3 partitions\): showing the new one\./);
  const shown = await until(
    browser,
    async () => {
      const r = await rows(browser);
      return r.length > 0 ? r : null;
    },
    'the new topic rows',
  );
  assert.deepEqual(
    shown.map((r) => r.text.includes('the new names topic')),
    [true],
    'only the new topic message is shown',
  );
  await shot(browser, '22-topic-made-again');
});
