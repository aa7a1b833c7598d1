// Data in and out in the real app: export a topic of the fixture's
// copy to JSONL, import the file into a new topic and find the counts in the
// UI, and preview retention (dark and light). The native save and open
// dialogs cannot be driven by WebDriver: the path goes into the field beside
// "Choose…", as a person may type it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startApp, fixtureStore, cli, byId, until, shot, rows, setValue, shotsBothThemes } from './harness.mjs';

let browser;
let store;
let out;

before(async () => {
  store = fixtureStore('transfer');
  out = path.join(path.dirname(store), 'transfer-out');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  // A retention set by the CLI: opening the store never applies it; the app asks (the default).
  cli(store, 'retention', 'set', 'tiny', '--days', '1');
  browser = await startApp(store);
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 15000 });
});

after(async () => {
  await browser?.deleteSession();
});

const text = async (id) => (await byId(browser, id)).getText();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('opening a store with retention due deletes nothing: it asks, and deletes only on yes', async () => {
  const ask = await byId(browser, 'retention-due');
  await ask.waitForDisplayed({ timeout: 20000 });
  assert.match(await ask.getText(), /3 old files \(11 messages\) would be deleted\. Nothing has been deleted\./);
  assert.equal(fs.readdirSync(path.join(store, 'tiny')).length, 4, 'every day file of tiny is still there');
  await shotsBothThemes(browser, 'transfer-retention-due');
  // "Not now": nothing goes.
  await (await byId(browser, 'retention-due-later')).click();
  await sleep(2500);
  assert.equal(fs.readdirSync(path.join(store, 'tiny')).length, 4, 'still there after "Not now"');
  // Asked again on the next look (the setting changed back to ask), and yes this time.
  await (await byId(browser, 'topic-item-tiny')).click();
  await (await byId(browser, 'tab-retention')).click();
  const mode = await byId(browser, 'retention-mode');
  await mode.waitForDisplayed();
  assert.equal(await mode.getValue(), 'ask');
  await mode.selectByAttribute('value', 'never');
  await sleep(2500);
  assert.equal(await browser.$('[data-testid="retention-due"]').isExisting(), false, 'never: no question');
  assert.equal(fs.readdirSync(path.join(store, 'tiny')).length, 4);
  await mode.selectByAttribute('value', 'ask');
  await (await byId(browser, 'retention-due')).waitForDisplayed({ timeout: 20000 });
  await (await byId(browser, 'retention-due-delete')).click();
  await until(browser, async () => fs.readdirSync(path.join(store, 'tiny')).length === 1, 'the files deleted on yes', 15000);
  // The newest file stays (empty, named for the next offset); the other topics are untouched.
  assert.deepEqual(fs.readdirSync(path.join(store, 'tiny')).sort(), ['0-20261130_11.tmf']);
  assert.equal(fs.readdirSync(path.join(store, 'events')).length, 16);
  // What went is in the app's retention log, shown in the Retention tab.
  await until(browser, async () => (await browser.$$('[data-testid="retention-log-entry"]')).length > 0, 'the log entry', 10000);
  assert.match(await text('retention-log'), /tiny: 3 files, 11 messages/);
  await shotsBothThemes(browser, 'transfer-retention-log');
  await (await byId(browser, 'tab-messages')).click();
});

test('exports events to JSONL: the file has every message, and no partial file is left', async () => {
  await (await byId(browser, 'topic-item-events')).click();
  await until(browser, async () => (await rows(browser)).length > 0, 'rows of events');
  await (await byId(browser, 'export-open')).click();
  await (await byId(browser, 'export-dialog')).waitForDisplayed();
  assert.match(await text('export-dialog'), /The whole topic \(240\)/);
  const file = path.join(out, 'events.jsonl');
  await setValue(await byId(browser, 'export-path-input'), file);
  await shot(browser, 'transfer-export-dialog');
  await (await byId(browser, 'export-submit')).click();
  const result = await byId(browser, 'export-result');
  await result.waitForDisplayed({ timeout: 10000 });
  assert.equal(await result.getText(), `Exported 240 messages to ${file}.`);
  await shot(browser, 'transfer-export-done');
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, 240);
  const first = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(first), ['partition', 'offset', 'key', 'timestamp', 'payload']);
  assert.ok(!fs.existsSync(`${file}.partial`));

  // A folder chosen as the file: said so, nothing written.
  await setValue(await byId(browser, 'export-path-input'), out);
  await (await byId(browser, 'export-submit')).click();
  const err = await byId(browser, 'export-error');
  await err.waitForDisplayed({ timeout: 10000 });
  assert.match(await err.getText(), /it is a folder: give a file name/);
  await browser.keys('Escape');
  await (await byId(browser, 'export-dialog')).waitForExist({ reverse: true });
});

test('exports the rows picked with ctrl-click to CSV', async () => {
  const picks = await browser.execute(() => {
    const rowsOnScreen = [...document.querySelectorAll('[data-testid="message-row"]')].slice(2, 4);
    for (const r of rowsOnScreen) r.closest('[role="row"]')?.dispatchEvent(new MouseEvent('click', { bubbles: true, ctrlKey: true }));
    return rowsOnScreen.map((r) => `${r.getAttribute('data-partition')},${r.getAttribute('data-offset')},`);
  });
  await until(browser, async () => (await text('picked-count')).startsWith('2 picked'), 'two rows picked');
  await (await byId(browser, 'export-open')).click();
  assert.equal(await (await byId(browser, 'export-scope-picked')).isSelected(), true, 'the rows picked are what is exported');
  assert.match(await text('export-dialog'), /The rows picked \(2\)/);
  await (await byId(browser, 'export-format-csv')).click();
  const file = path.join(out, 'picked.csv');
  await setValue(await byId(browser, 'export-path-input'), file);
  await shot(browser, 'transfer-export-picked');
  await (await byId(browser, 'export-submit')).click();
  await (await byId(browser, 'export-result')).waitForDisplayed({ timeout: 10000 });
  assert.equal(await text('export-result'), `Exported 2 messages to ${file}.`);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines[0], 'partition,offset,timestamp,key,kind,class,payload');
  assert.deepEqual(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(',') + ','), picks);
  await browser.keys('Escape');
  await (await byId(browser, 'picked-clear')).click();
});

test('imports the file into a new topic after a dry run, and the counts show in the UI', async () => {
  // Three partitions, not four: the fixture's groups, written by 0.2.3, name no topic, and are
  // taken to read the one topic of four partitions; and the messages are re-partitioned.
  cli(store, 'topics', 'create', 'events-copy', '--key-type', 'u16', '--partitions', '3');
  await (await byId(browser, 'topic-item-events-copy')).waitForDisplayed({ timeout: 5000 });
  await (await byId(browser, 'topic-item-events-copy')).click();
  await (await byId(browser, 'import-open')).click();
  await (await byId(browser, 'import-dialog')).waitForDisplayed();
  await setValue(await byId(browser, 'import-path-input'), path.join(out, 'events.jsonl'));
  await (await byId(browser, 'import-keep-timestamps')).click();
  await (await byId(browser, 'import-check')).click();
  const report = await byId(browser, 'import-report');
  await report.waitForDisplayed({ timeout: 10000 });
  assert.equal(await text('import-report-count'), '240');
  assert.match(await report.getText(), /No bad lines\./);
  // Each message goes where the target's partitioner puts its key: all three partitions get some.
  const parts = await browser.execute(() => [...document.querySelectorAll('[data-testid="import-report"] .part')].map((e) => e.textContent?.trim() ?? ''));
  assert.equal(parts.length, 3);
  assert.equal(parts.reduce((a, p) => a + Number(p.split(' ')[1]), 0), 240);
  assert.ok(parts.every((p) => Number(p.split(' ')[1]) > 0), parts.join(', '));
  await shot(browser, 'transfer-import-dry-run');
  assert.equal(JSON.parse(cli(store, 'topics', 'describe', 'events-copy', '--json')).messages, 0, 'the dry run wrote nothing');
  await (await byId(browser, 'import-submit')).click();
  const done = await byId(browser, 'import-result');
  await done.waitForDisplayed({ timeout: 10000 });
  assert.equal(await done.getText(), 'Imported 240 messages into events-copy.');
  await shot(browser, 'transfer-import-done');
  await browser.keys('Escape');
  // The sidebar and the table show them.
  await until(browser, async () => (await text('topic-item-events-copy')).includes('240'), 'the count in the sidebar', 10000);
  await until(browser, async () => (await rows(browser)).length > 0, 'rows of events-copy', 10000);
  assert.match(await text('row-range'), /of 240/);
  const copied = JSON.parse(cli(store, 'topics', 'describe', 'events-copy', '--json'));
  assert.deepEqual(copied.partition_details.map((p) => `${p.partition} ${p.end - p.start}`), parts, 'what landed is what the dry run said');
});

test('previews retention: what goes, the group that keeps files, what 0.2.3 readers do (dark and light)', async () => {
  await (await byId(browser, 'topic-item-events')).click();
  await (await byId(browser, 'tab-retention')).click();
  await (await byId(browser, 'retention-panel')).waitForDisplayed();
  assert.match(await text('retention-current'), /none: messages are kept until deleted/);
  await setValue(await byId(browser, 'retention-days'), '1');
  const totals = await byId(browser, 'retention-plan-totals');
  await totals.waitForDisplayed({ timeout: 10000 });
  await shot(browser, 'transfer-retention-first');
  assert.match(await totals.getText(), /^Would delete 2 files: 45 messages, 1\.7 KB\.$/, 'as `twainmq retention apply --dry-run` says');
  assert.match(await text('retention-plan-holding'), /workers/);
  assert.match(await text('retention-plan-compat'), /0\.2\.3 readers count offsets from the first file left/);
  const theme = await byId(browser, 'theme-toggle');
  for (let i = 0; i < 3 && (await theme.getAttribute('data-theme')) !== 'dark'; i++) await theme.click();
  await shot(browser, 'transfer-retention-preview-dark');
  for (let i = 0; i < 3 && (await theme.getAttribute('data-theme')) !== 'light'; i++) await theme.click();
  await shot(browser, 'transfer-retention-preview-light');
  // Forced: the group loses messages, and the preview says so.
  await (await byId(browser, 'retention-force')).click();
  await until(browser, async () => (await byId(browser, 'retention-plan-losing')).isExisting(), 'the losing group');
  assert.match(await text('retention-plan-losing'), /workers would lose messages it has not consumed yet/);
  await shot(browser, 'transfer-retention-forced-light');
  for (let i = 0; i < 3 && (await theme.getAttribute('data-theme')) !== 'dark'; i++) await theme.click();
  // Nothing was deleted by previewing.
  assert.equal(fs.readdirSync(path.join(store, 'events')).filter((f) => f.endsWith('.tmf')).length, 16);
});
