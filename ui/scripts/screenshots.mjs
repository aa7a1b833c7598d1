// Screenshots of the UI on the recorded test backend (`?mock`), in headless Chromium,
// for people to look at. Needs puppeteer-core (not a project dependency: install it
// anywhere and point PUPPETEER_DIR at that folder) and the preview build
// (`npm run build:preview`) served by `node scripts/serve-dist.mjs 8766 dist-preview`:
// the app's own ui/dist has no test backend. The pages ask only what was recorded
// (src-tauri/src/record.rs); anything else the preview answers with a `preview` error.
// Usage: PUPPETEER_DIR=/tmp/shot node scripts/screenshots.mjs [baseUrl] [outDir]
import { createRequire } from 'node:module';
import { mkdir } from 'node:fs/promises';

const require = createRequire((process.env.PUPPETEER_DIR ?? process.cwd()) + '/');
const puppeteer = require('puppeteer-core');
const base = process.argv[2] ?? 'http://127.0.0.1:8766/';
const out = process.argv[3] ?? new URL('../../artifacts/', import.meta.url).pathname;
await mkdir(out, { recursive: true });

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  defaultViewport: { width: 1280, height: 800 },
});
const problems = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function open(path, wait = 600) {
  const page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${path}: console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${path}: page error: ${e.message}`));
  page.on('dialog', async (d) => {
    problems.push(`${path}: a dialog opened (${d.message()}): script ran from content!`);
    await d.dismiss();
  });
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(base + path, { waitUntil: 'load' });
  await sleep(wait);
  return page;
}

async function shot(page, name) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: `${out}/ui-${name}.png` });
  console.log(`ui-${name}.png`);
}

let p;
p = await open('?mock#theme=light');
await shot(p, 'welcome');
await p.click('[data-testid=recent-store]:nth-of-type(1)');
p = await open('?mock#theme=dark');
await page_click_recent_missing(p);
await shot(p, 'welcome-error');

p = await open('?mock=open#topic=orders&theme=light');
await shot(p, 'messages-light');
p = await open('?mock=open#topic=orders&theme=dark');
await shot(p, 'messages-dark');

p = await open('?mock=open#topic=orders&select=0:2&detail=fields&theme=dark');
await shot(p, 'detail-typed-fields');
await p.click('[data-testid=detail-tab-json]');
await shot(p, 'detail-typed-json');
p = await open('?mock=open#topic=sensors&select=1:12&detail=hex&theme=light');
await shot(p, 'detail-bytes-hex');
p = await open('?mock=open#topic=chat&select=0:5&theme=dark');
await shot(p, 'chat-xss');
const imgs = await p.$$eval('img', (x) => x.length);
if (imgs !== 0) problems.push(`chat: ${imgs} img elements: a payload became markup`);

p = await open('?mock=open&searchChunk=40&searchDelay=150#topic=firehose&search=level%3Derror&theme=dark', 900);
await shot(p, 'search-running');
p = await open('?mock=open#topic=orders&search=lamp&theme=light', 900);
await shot(p, 'search-results');

p = await open('?mock=open#topic=firehose&theme=dark');
const rows = await p.$$eval('[data-testid=message-row]', (x) => x.length);
console.log(`firehose: ${rows} rows in the DOM of 1,500`);
await p.focus('[data-testid=jump-offset-input]');
await p.type('[data-testid=jump-offset-input]', '1234');
await p.click('[data-testid=jump-offset-go]');
await sleep(500);
await shot(p, 'firehose-jump');

p = await open('?mock=open#topic=orders&tab=partitions&theme=dark');
await shot(p, 'partitions');
p = await open('?mock=open#topic=sensors&tab=partitions&theme=light');
await shot(p, 'partitions-unknown-files');

p = await open('?mock=open#topic=orders&tab=produce&theme=dark');
await p.type('[data-testid=produce-key]', '4294967295');
await p.click('[data-testid=produce-body]', { clickCount: 3 });
await p.keyboard.down('Control');
await p.keyboard.press('a');
await p.keyboard.up('Control');
await p.type('[data-testid=produce-body]', '{"id": 98765432109876543210, "price": 1.50}');
await p.keyboard.down('Control');
await p.keyboard.press('Enter');
await p.keyboard.up('Control');
await sleep(400);
await shot(p, 'produce');
p = await open('?mock=open#topic=chat&tab=produce&theme=light');
await p.type('[data-testid=produce-key]', 'a-very-long-key-name');
await shot(p, 'produce-invalid-key');

p = await open('?mock=open#topic=orders&dialog=create&theme=dark');
await p.type('[data-testid=create-topic-name]', 'bad name!');
await shot(p, 'create-dialog');
p = await open('?mock=open#topic=orders&dialog=delete&theme=light');
await p.type('[data-testid=delete-confirm-input]', 'ord');
await shot(p, 'delete-dialog');
p = await open('?mock=open#topic=broken&theme=dark');
await shot(p, 'topic-broken');
p = await open('?mock=open#topic=empty&theme=dark');
await shot(p, 'topic-empty');
p = await open('?mock=open&live=400#topic=chat&follow&theme=dark', 2500);
await shot(p, 'follow-live');

// Consumer groups.
p = await open('?mock=open#group=billing&theme=dark');
await shot(p, 'group-dark');
p = await open('?mock=open#group=billing&theme=light');
await shot(p, 'group-light');
// The recorded demo scene on billing: one member joins its two external ones.
for (const field of ['demo-window', 'demo-rate']) {
  await p.click(`[data-testid=${field}]`, { clickCount: 3 });
  await p.type(`[data-testid=${field}]`, field === 'demo-window' ? '120' : '40');
}
await p.click('[data-testid=demo-add]');
await sleep(3000);
await shot(p, 'group-demo-light');
// A round from outside, of a recorded window (300, 800 or 2400 ms).
await p.click('[data-testid=demo-window]', { clickCount: 3 });
await p.type('[data-testid=demo-window]', '2400');
// light → system → dark
await p.evaluate(() => document.querySelector('[data-testid=theme-toggle]').click());
await p.evaluate(() => document.querySelector('[data-testid=theme-toggle]').click());
await p.click('[data-testid=demo-round]');
await sleep(500);
await shot(p, 'group-round-open');
// The recorded scene on a new group: two members, the second killed.
p = await open('?mock=open#topic=orders&tab=groups&theme=dark');
await p.click('[data-testid=demo-group-name]', { clickCount: 3 });
await p.type('[data-testid=demo-group-name]', 'pair');
await p.click('[data-testid=demo-group-start]');
await sleep(1500);
await p.click('[data-testid=demo-add]');
await sleep(1500);
const victim = await p.$$('[data-testid=demo-member] [data-testid=demo-kill]');
await victim[victim.length - 1].click();
await sleep(1500);
await shot(p, 'group-after-kill-dark');
p = await open('?mock=open#group=billing&reset&theme=dark');
await p.select('[data-testid=reset-target]', 'offset');
await p.type('[data-testid=reset-offset-input]', '60');
await p.click('[data-testid=reset-scope-chosen]');
await p.click('[data-testid=reset-partition][data-partition="0"]');
await p.click('[data-testid=reset-dry-run]');
await sleep(300);
await shot(p, 'group-reset-dry-run');
await p.click('[data-testid=reset-confirm]');
await sleep(300);
await shot(p, 'group-reset-result');
p = await open('?mock=open#group=tail&theme=light');
await shot(p, 'group-tail-0.2.3');
p = await open('?mock=open#topic=orders&tab=groups&theme=light');
await shot(p, 'topic-groups');
p = await open('?mock=open&live=150#topic=chat&tab=partitions&theme=dark', 4000);
await shot(p, 'topic-throughput');
p = await open('?mock=open&nowatch#topic=orders&select=1:7&theme=light');
await shot(p, 'not-live-damaged-raw');

async function page_click_recent_missing(page) {
  const items = await page.$$('[data-testid=recent-store]');
  await items[items.length - 1].click();
  await sleep(300);
}

await browser.close();
if (problems.length) {
  console.log('PROBLEMS:\n' + problems.join('\n'));
  process.exitCode = 1;
} else console.log('no console errors, page errors or CSP violations');
