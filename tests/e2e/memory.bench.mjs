// The app's memory over a walk, in the real app (release build) under Xvfb: a store of a few
// topics and groups, walked round after round as a user would (each topic's messages, a message's
// detail, every tab, a search; each group's page; following a topic another process writes), the app's processes' memory read after each
// round once the app is idle again. A walk repeated must not grow the app: what a round leaves
// behind is cache, bounded, not a leak, so the last rounds end where the first ones did.
//
// Not a test file (no *.test.mjs): `make bench-app` runs it after perf.bench.mjs.
// Knobs: BENCH_WALK_ROUNDS (8), BENCH_WALK_MESSAGES (a topic's messages, 20000),
// BENCH_WALK_PARTS (the parts of a round, a comma list of rows, tabs, search, groups, follow),
// BENCH_WALK_BIG=0 (no big store after the rounds), BENCH_WALK_BIG_MESSAGES (2000000),
// BENCH_STRICT=1 (exit 1 when the goal is missed), BENCH_WALK_JSON (where the figures go).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApp, cli, CLI, byId, until } from './harness.mjs';
import { appMemory, pacedProducer, seed } from './perf.bench.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '../..');
const ROUNDS = Number(process.env.BENCH_WALK_ROUNDS ?? 8);
const MESSAGES = Number(process.env.BENCH_WALK_MESSAGES ?? 20_000);
const JSON_OUT = process.env.BENCH_WALK_JSON ?? path.join(root, 'artifacts/bench-app-memory.json');
const TOPICS = ['orders', 'payments', 'audit', 'events', 'clicks'];
const GROUP_OF = { orders: 'billing', payments: 'ledger', events: 'analytics' };
/** Growth from the second round's end to the last's allowed for caches settling (MB, all processes). */
const GOAL_GROWTH_MB = 30;
const BIG_MESSAGES = Number(process.env.BENCH_WALK_BIG_MESSAGES ?? 2_000_000);
/** The app's own memory back on the small store after a big one, over what it had there at first (MB). */
const GOAL_AFTER_BIG_MB = 40;
/** The parts of a round (BENCH_WALK_PARTS, a comma list; all by default): to find which one grows. */
const PARTS = new Set((process.env.BENCH_WALK_PARTS ?? 'rows,tabs,search,groups,follow').split(','));
const SKIP_BIG = process.env.BENCH_WALK_BIG === '0';
const FOLLOW_RATE = 1000;
const FOLLOW_SECONDS = 4;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

function seedStore() {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'twainmq-walk-'));
  for (const [i, topic] of TOPICS.entries()) {
    cli(store, 'topics', 'create', topic, '--partitions', String(1 + (i % 4)));
    const lines = [];
    for (let n = 0; n < MESSAGES; n++) {
      const text = n % 3 === 0 ? JSON.stringify({ id: n, country: ['fr', 'de', 'jp'][n % 7 % 3], amount: n * 1.5, note: `walk ${topic} ${n}` }) : `plain ${topic} message ${n} ${'x'.repeat(n % 200)}`;
      lines.push(JSON.stringify({ key: n % 1000, payload: text }));
    }
    const file = path.join(store, `.seed-${topic}.jsonl`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    cli(store, 'import', topic, file);
    fs.rmSync(file);
    const group = GROUP_OF[topic];
    if (group) {
      const args = ['--store', store, 'consume', topic, '--group', group, '--rebalance-window', '1', '--max', String(MESSAGES / 2)];
      execFileSync(CLI, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }
  return store;
}

async function clickId(browser, id) {
  const el = await byId(browser, id);
  await el.waitForClickable({ timeout: 10_000 });
  await el.click();
}

async function walkTopic(browser, topic) {
  await clickId(browser, `topic-item-${topic}`);
  await clickId(browser, 'tab-messages');
  await until(browser, async () => (await browser.$$('[data-testid="message-row"]')).length > 0, `rows of ${topic}`, 15_000);
  const rows = await browser.$$('[data-testid="message-row"]');
  if (PARTS.has('rows')) {
    await rows[Math.min(3, rows.length - 1)].click();
    await sleep(200);
    await browser.keys(['End']);
    await sleep(300);
    await browser.keys(['Home']);
  }
  if (PARTS.has('tabs')) {
    for (const tab of ['partitions', 'groups', 'produce', 'retention', 'messages']) {
      await clickId(browser, `tab-${tab}`);
      await sleep(150);
    }
  }
  if (!PARTS.has('search')) return;
  const input = await byId(browser, 'search-input');
  await input.waitForDisplayed({ timeout: 10_000 });
  await input.clearValue();
  await input.setValue('walk');
  await clickId(browser, 'search-go');
  const progress = await byId(browser, 'search-progress');
  await until(browser, async () => (await progress.getAttribute('data-state')) === 'done', `search of ${topic} done`, 60_000);
  await clickId(browser, 'search-clear');
  await sleep(200);
}

/** Follow a topic's tail while another process writes to it (FOLLOW_RATE msg/s for FOLLOW_SECONDS). */
async function followLive(browser, store, topic) {
  await clickId(browser, `topic-item-${topic}`);
  await clickId(browser, 'tab-messages');
  await clickId(browser, 'follow-toggle');
  const producer = pacedProducer(store, topic, FOLLOW_RATE, FOLLOW_SECONDS, 0);
  const r = await producer.done;
  if (r.code !== 0) throw new Error(`the producer failed: ${r.stderr}`);
  await sleep(500);
  await clickId(browser, 'follow-toggle');
}

async function walkGroups(browser) {
  for (const group of Object.values(GROUP_OF)) {
    const item = await byId(browser, `group-item-${group}`);
    if (!(await item.isExisting())) continue;
    await (await item.$('[data-testid="group-open"]')).click();
    await sleep(400);
  }
}

/**
 * A big store walked (its topic's first page and end, a search over all of it), closed, and the
 * small store opened again from the recent list: the app must give back what the big store
 * took, not keep it for the rest of the session.
 */
async function afterBigStore(small) {
  const big = fs.mkdtempSync(path.join(os.tmpdir(), 'twainmq-walk-big-'));
  cli(big, 'topics', 'create', 'big', '--key-type', 'u32', '--partitions', '4');
  log(`seeding ${BIG_MESSAGES} messages into a big store`);
  await seed(big, 'big', BIG_MESSAGES, 'big');
  const browser = await startApp(big);
  try {
    await clickId(browser, 'topic-item-big');
    await until(browser, async () => (await browser.$$('[data-testid="message-row"]')).length > 0, 'rows of big', 30_000);
    await (await browser.$$('[data-testid="message-row"]'))[0].click();
    await browser.keys(['End']);
    await sleep(500);
    const input = await byId(browser, 'search-input');
    await input.setValue('zebra-needle');
    await clickId(browser, 'search-go');
    const progress = await byId(browser, 'search-progress');
    await until(browser, async () => (await progress.getAttribute('data-state')) === 'done', 'the big search done', 120_000);
    await sleep(2000);
    figures.big_walked = appMemory();
    log(`big store walked: ${figures.big_walked.total_rss_mb} MB (app ${figures.big_walked.main_rss_mb})`);
    await clickId(browser, 'store-path');
    await clickId(browser, 'menu-close-store');
    await (await byId(browser, 'welcome')).waitForDisplayed({ timeout: 10_000 });
    const recentTexts = () => browser.execute(() => [...document.querySelectorAll('[data-testid="recent-store"]')].map((b) => b.textContent));
    await until(browser, async () => (await recentTexts()).includes(small), 'the small store in the recent list', 10_000, async () => (await recentTexts()).join(' | '));
    await browser.execute((p) => [...document.querySelectorAll('[data-testid="recent-store"]')].find((b) => b.textContent === p)?.click(), small);
    await until(browser, async () => (await byId(browser, `topic-item-${TOPICS[0]}`)).isExisting(), 'the small store open again', 30_000);
    await sleep(5000);
    figures.small_after_big = appMemory();
    log(`small store again: ${figures.small_after_big.total_rss_mb} MB (app ${figures.small_after_big.main_rss_mb})`);
  } finally {
    await browser.deleteSession().catch(() => {});
    fs.rmSync(big, { recursive: true, force: true });
  }
}

const figures = { rounds: [], env: { rounds: ROUNDS, topics: TOPICS.length, messages_per_topic: MESSAGES } };

async function main() {
  log(`seeding ${TOPICS.length} topics of ${MESSAGES} messages`);
  const store = seedStore();
  const browser = await startApp(store);
  try {
    await until(browser, async () => (await byId(browser, `topic-item-${TOPICS[0]}`)).isExisting(), 'the store open', 30_000);
    await sleep(3000);
    const opened = appMemory();
    figures.opened = opened;
    log(`store open: ${opened.total_rss_mb} MB (app ${opened.main_rss_mb}, anon ${opened.total_anon_mb})`);
    for (let r = 1; r <= ROUNDS; r++) {
      const t0 = performance.now();
      for (const topic of TOPICS) await walkTopic(browser, topic);
      if (PARTS.has('groups')) await walkGroups(browser);
      if (PARTS.has('follow')) await followLive(browser, store, 'events');
      await sleep(3000);
      const m = appMemory();
      figures.rounds.push({ round: r, seconds: Math.round((performance.now() - t0) / 100) / 10, ...m });
      log(`round ${r}: ${m.total_rss_mb} MB (app ${m.main_rss_mb}, anon ${m.total_anon_mb}; ${m.processes.map((p) => `${p.name} ${p.rss_mb}`).join(', ')})`);
    }
  } finally {
    await browser.deleteSession().catch(() => {});
  }
  if (!SKIP_BIG) await afterBigStore(store);
  const second = figures.rounds[Math.min(1, figures.rounds.length - 1)];
  const last = figures.rounds[figures.rounds.length - 1];
  const growth = Math.round((last.total_rss_mb - second.total_rss_mb) * 10) / 10;
  const appGrowth = Math.round((last.main_rss_mb - second.main_rss_mb) * 10) / 10;
  figures.growth_after_second_round_mb = { total: growth, app: appGrowth };
  if (SKIP_BIG) {
    fs.mkdirSync(path.dirname(JSON_OUT), { recursive: true });
    fs.writeFileSync(JSON_OUT, JSON.stringify(figures, null, 2));
    console.log(`rounds of ${[...PARTS].join(',')}: ${figures.rounds.map((r) => r.total_rss_mb).join(' ')} MB\nfigures: ${JSON_OUT}`);
    return;
  }
  const kept = Math.round((figures.small_after_big.main_rss_mb - figures.opened.main_rss_mb) * 10) / 10;
  figures.app_kept_after_big_mb = kept;
  const met = growth <= GOAL_GROWTH_MB && kept <= GOAL_AFTER_BIG_MB;
  fs.mkdirSync(path.dirname(JSON_OUT), { recursive: true });
  fs.writeFileSync(JSON_OUT, JSON.stringify(figures, null, 2));
  console.log(
    `\nmemory over a walk (${ROUNDS} rounds of ${TOPICS.length} topics and ${Object.keys(GROUP_OF).length} groups): ` +
      `store open ${figures.opened.total_rss_mb} MB (app ${figures.opened.main_rss_mb}); ` +
      `after round 1 ${figures.rounds[0].total_rss_mb} MB (app ${figures.rounds[0].main_rss_mb}); after round ${ROUNDS} ${last.total_rss_mb} MB (app ${last.main_rss_mb}); ` +
      `growth from round 2 to ${ROUNDS}: ${growth} MB (app ${appGrowth}), goal <= ${GOAL_GROWTH_MB} MB\n` +
      `a ${BIG_MESSAGES.toLocaleString('en')}-message store walked: ${figures.big_walked.total_rss_mb} MB (app ${figures.big_walked.main_rss_mb}); ` +
      `closed, the small store again: ${figures.small_after_big.total_rss_mb} MB (app ${figures.small_after_big.main_rss_mb}, ${kept} MB over its first opening), goal <= ${GOAL_AFTER_BIG_MB} MB\n` +
      `goals: ${met ? 'met' : 'MISSED'}\nfigures: ${JSON_OUT}`,
  );
  if (!met && process.env.BENCH_STRICT === '1') process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
