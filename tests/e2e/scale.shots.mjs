// Screens at scale, looked at by a person (not a test file: run with
// `make shots-scale`): a 10M-message topic (the timeline's End, a jump to a
// time, a CEL search whose hits stream in, a second window on it), a store of 5,000 topics and a topic
// of 1,000 partitions. Screenshots go to $E2E_ARTIFACTS/scale-*.png; the times
// printed are from WebDriver (not benchmarks: `make bench-app` measures).
// Knobs: SCALE_MESSAGES (10000000), SCALE_TOPICS (5000), SCALE_PARTITIONS (1000).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApp, cli, CLI, byId, until, shot, rows, setValue } from './harness.mjs';

const N = Number(process.env.SCALE_MESSAGES ?? 10_000_000);
const TOPICS = Number(process.env.SCALE_TOPICS ?? 5000);
const PARTS = Number(process.env.SCALE_PARTITIONS ?? 1000);
const WORK = process.env.E2E_WORK ?? fs.mkdtempSync(path.join(os.tmpdir(), 'twainmq-scale-'));
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'JP'];

async function seed(store, topic, n, first = 0) {
  const child = spawn(CLI, ['--store', store, 'produce', topic, '--jsonl', '--batch'], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  for (let i = first; i < first + n; i += 10000) {
    let s = '';
    for (let k = i; k < Math.min(first + n, i + 10000); k++) {
      const p = JSON.stringify({ id: k, country: COUNTRIES[k % 5], amount: (k * 7919) % 500, note: k % 1000 === 0 ? 'timeout talking to the gateway' : 'ok' });
      s += `{"key":${k % 1000},"payload":${JSON.stringify(p)}}\n`;
    }
    if (!child.stdin.write(s)) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  if ((await exited) !== 0) throw new Error(`seeding ${topic} failed`);
}

async function timed(what, fn) {
  const t = performance.now();
  const r = await fn();
  log(`${what}: ${Math.round(performance.now() - t)} ms`);
  return r;
}

async function bigTopic() {
  const store = path.join(WORK, 'big');
  fs.mkdirSync(store, { recursive: true });
  cli(store, 'topics', 'create', 'payments', '--key-type', 'u32', '--partitions', '4');
  log(`seeding ${N.toLocaleString('en')} messages`);
  await seed(store, 'payments', N);
  const browser = await startApp(store);
  try {
    await (await byId(browser, 'topic-item-payments')).waitForDisplayed({ timeout: 30000 });
    await timed('first page of the timeline (topic clicked to rows)', async () => {
      await (await byId(browser, 'topic-item-payments')).click();
      await until(browser, async () => (await rows(browser)).length > 5, 'rows', 60000);
    });
    await shot(browser, 'scale-10m-first-page');
    await browser.execute(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await timed('End (the newest message)', async () => {
      await browser.keys('End');
      await until(browser, async () => (await (await byId(browser, 'row-range')).getText()).includes(`${N.toLocaleString('en')} of ${N.toLocaleString('en')}`), 'the end', 60000);
      // The rows themselves, not only the range: no placeholder left on screen.
      await until(browser, async () => (await rows(browser)).length > 10 && !(await browser.$('[data-testid="message-row-pending"]').isExisting()), 'the newest rows', 60000);
    });
    await shot(browser, 'scale-10m-end');
    const mid = JSON.parse(cli(store, 'consume', 'payments', '--partition', '2', '--from', String(Math.floor(N / 8)), '--max', '1', '--json').split('\n')[0]);
    await setValue(await byId(browser, 'jump-time-input'), new Date(mid.timestamp * 1000).toISOString());
    await timed('jump to a time', async () => {
      await (await byId(browser, 'jump-time-go')).click();
      await until(browser, async () => (await rows(browser)).length > 5, 'rows at the time', 30000);
    });
    await shot(browser, 'scale-10m-jump-time');
    await setValue(await byId(browser, 'search-input'), 'value.country == "DE" && value.amount > 490');
    await (await byId(browser, 'search-go')).click();
    await timed('first hits of a CEL search in the table', () => until(browser, async () => (await rows(browser)).length > 0, 'first hits', 60000));
    await shot(browser, 'scale-10m-search-running');
    await until(browser, async () => (await (await byId(browser, 'search-progress')).getAttribute('data-state')) !== 'running', 'the search done', 300000);
    log(`search: ${await (await byId(browser, 'search-count')).getText()}`);
    await shot(browser, 'scale-10m-search-done');
    await (await byId(browser, 'search-clear')).click();
    // A second window on the same store (File → New Window with it), the first still open on the topic.
    const main = await browser.getWindowHandle();
    const before = await browser.getWindowHandles();
    await browser.execute((p) => window.__TAURI_INTERNALS__.invoke('new_window', { path: p }), store);
    const made = await until(browser, async () => (await browser.getWindowHandles()).find((h) => !before.includes(h)), 'the second window', 30000);
    await browser.switchToWindow(made);
    try {
      await timed('second window: topic clicked to rows', async () => {
        await (await byId(browser, 'topic-item-payments')).waitForDisplayed({ timeout: 30000 });
        await (await byId(browser, 'topic-item-payments')).click();
        await until(browser, async () => (await rows(browser)).length > 5, 'rows in the second window', 60000);
      });
      await shot(browser, 'scale-10m-second-window');
      await browser.closeWindow();
    } finally {
      await browser.switchToWindow(main);
    }
  } finally {
    await browser.deleteSession().catch(() => {});
  }
}

async function manyTopics() {
  const store = path.join(WORK, 'many');
  fs.mkdirSync(store, { recursive: true });
  log(`making ${TOPICS} topics`);
  // One made by the CLI, its config copied for the others (5,000 CLI runs take long).
  cli(store, 'topics', 'create', 'svc-0000.events', '--key-type', 'u32', '--partitions', '1');
  const config = fs.readFileSync(path.join(store, 'svc-0000.events.twc'));
  for (let i = 1; i < TOPICS; i++) {
    const name = `svc-${String(i).padStart(4, '0')}.events`;
    fs.writeFileSync(path.join(store, `${name}.twc`), config);
    fs.mkdirSync(path.join(store, name));
  }
  cli(store, 'topics', 'create', 'wide', '--key-type', 'u32', '--partitions', String(PARTS));
  await seed(store, 'wide', 20000);
  const browser = await startApp(store);
  try {
    await timed('sidebar with the store open', async () => {
      await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 60000 });
    });
    await shot(browser, 'scale-5000-topics');
    // The sidebar draws only the rows in view: find the topic as a user would, by its name.
    await setValue(await byId(browser, 'sidebar-filter'), 'wide');
    await shot(browser, 'scale-5000-topics-filtered');
    await (await byId(browser, 'topic-item-wide')).click();
    await until(browser, async () => (await rows(browser)).length > 5, 'rows of the wide topic', 60000);
    await shot(browser, 'scale-1000-partitions-messages');
    const tab = await browser.$('[data-testid="tab-partitions"]');
    if (await tab.isExisting()) {
      await tab.click();
      await browser.pause(1000);
      await shot(browser, 'scale-1000-partitions-tab');
    }
  } finally {
    await browser.deleteSession().catch(() => {});
  }
}

await bigTopic();
if (!process.env.SCALE_ONLY_BIG) await manyTopics();
log('done');
