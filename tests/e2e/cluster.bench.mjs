// The cluster window's speed, measured in the real app (release build) under Xvfb against a real
// Kafka-protocol broker (nisshi, SQLite storage, started here): a cluster of 1,001 topics, one
// of them holding 1M records in 4 partitions (written by confluent-kafka):
//   1. the topics listed: the window's Refresh (every topic with its partitions' watermarks);
//   2. the big topic's first page, from the click;
//   3. a jump to a time (the broker's offset for time), from the click;
//   4. a CEL search over the 1M records (every partition), from the click to "every partition
//      read", in records a second, beside confluent-kafka reading the same topic whole.
// Times are taken in the page (performance.now() from the click to the DOM showing the result,
// polled each animation frame), not from WebDriver round trips.
//
// Not a test file: `make bench-app` runs it after the store's benchmarks when nisshi is built.
// Knobs: BENCH_CLUSTER_MESSAGES (1000000), BENCH_CLUSTER_TOPICS (1000), BENCH_CLUSTER_RUNS (3),
// BENCH_CLUSTER_JSON (artifacts/bench-app-cluster.json).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startApp, byId, until, setValue, shot } from './harness.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '../..');
const N = Number(process.env.BENCH_CLUSTER_MESSAGES ?? 1_000_000);
const TOPICS = Number(process.env.BENCH_CLUSTER_TOPICS ?? 1000);
const RUNS = Number(process.env.BENCH_CLUSTER_RUNS ?? 3);
const JSON_OUT = process.env.BENCH_CLUSTER_JSON ?? path.join(root, 'artifacts/bench-app-cluster.json');
const T0 = 1_765_000_000_000;
const python = path.join(root, '.venv/bin/python');
const nisshi = process.env.NISSHI ?? execFileSync('bash', [path.join(root, 'scripts/nisshi.sh'), 'path'], { encoding: 'utf8' }).trim();
if (!fs.existsSync(nisshi)) {
  console.log(`SKIPPED: nisshi is not built at ${nisshi} (scripts/nisshi.sh start builds it)`);
  process.exit(0);
}

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = (...args) => execFileSync(python, [path.join(here, 'kafka-load.py'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

/** Click `sel` in the page and time until `done` holds (checked each frame), in ms; `done` is one of the kinds below. */
async function timeClick(browser, sel, done, arg = null) {
  return browser.executeAsync(
    (sel, done, arg, finish) => {
      const test = () => {
        if (done === 'records') return document.querySelectorAll('[data-testid="cluster-record"]').length > 0;
        if (done === 'first-offset') return document.querySelector('[data-testid="cluster-record"] td')?.textContent === arg;
        if (done === 'refreshed') return document.querySelector('[data-testid="cluster-refresh"]')?.textContent === 'Refresh';
        if (done === 'searched') return /every partition read|stopped/.test(document.querySelector('[data-testid="cluster-search-state"]')?.textContent ?? '');
        return false;
      };
      const el = document.querySelector(sel);
      // An object with `error` would read as WebDriver's own error: `missing` says what is not there.
      if (!el) return finish({ missing: `no ${sel}; the page says: ${document.querySelector('.content')?.textContent?.slice(0, 400)}` });
      const t0 = performance.now();
      el.click();
      const deadline = t0 + 600_000;
      const tick = () => {
        if (test()) return finish({ ms: performance.now() - t0 });
        if (performance.now() > deadline) return finish({ missing: `${done} not seen in 10 minutes` });
        requestAnimationFrame(tick);
      };
      // The click's own render first: a condition true before it (a page already shown) is not the answer.
      requestAnimationFrame(() => requestAnimationFrame(tick));
    },
    sel,
    done,
    arg,
  );
}

const ok = (r, what) => {
  if (r.missing) throw new Error(`${what}: ${r.missing}`);
  return r.ms;
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'twainmq-bench-cluster-'));
const port = await freePort();
const bootstrap = `127.0.0.1:${port}`;
const url = `tcp://${bootstrap}`;
const broker = spawn(nisshi, ['broker', '--storage-engine', 'sqlite://broker.db', '--listener-url', url, '--advertised-listener-url', url, '--cluster-id', 'bench', '--group-initial-rebalance-delay', '0s'], {
  cwd: work,
  stdio: ['ignore', fs.openSync(path.join(work, 'broker.log'), 'a'), fs.openSync(path.join(work, 'broker.log'), 'a')],
  env: { ...process.env, RUST_LOG: 'warn' },
});
let browser;
const figures = { messages: N, topics: TOPICS + 1, runs: RUNS };
try {
  for (let i = 0; i < 300; i++) {
    const up = await new Promise((r) => {
      const c = net.connect(port, '127.0.0.1', () => (c.end(), r(true)));
      c.on('error', () => r(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  let t = Date.now();
  load('fill', bootstrap, 'big', String(N), '4', String(T0));
  figures.fill_seconds = (Date.now() - t) / 1000;
  t = Date.now();
  load('topics', bootstrap, 't.', String(TOPICS));
  figures.topics_seconds = (Date.now() - t) / 1000;
  console.log(`# wrote ${N} records in ${figures.fill_seconds} s and made ${TOPICS} topics in ${figures.topics_seconds} s`);
  const reads = [];
  for (let i = 0; i < RUNS; i++) reads.push(JSON.parse(load('consume', bootstrap, 'big')));
  figures.confluent_read = { records: reads[0].records, seconds_median: median(reads.map((r) => r.seconds)), per_second: Math.round(reads[0].records / median(reads.map((r) => r.seconds))) };

  browser = await startApp();
  // A search of 1M records takes longer than WebDriver's 30 s for a script: the timings run in the page.
  await browser.setTimeout({ script: 15 * 60 * 1000 });
  await (await byId(browser, 'open-kafka')).waitForDisplayed({ timeout: 20000 });
  await (await byId(browser, 'open-kafka')).click();
  await setValue(await byId(browser, 'connect-bootstrap'), bootstrap);
  await (await byId(browser, 'connect-save')).click();
  const before = await browser.getWindowHandles();
  const connectStarted = Date.now();
  await (await byId(browser, 'connect-go')).click();
  const made = await until(browser, async () => (await browser.getWindowHandles()).find((h) => !before.includes(h)), 'the cluster window', 60000);
  await browser.switchToWindow(made);
  await (await byId(browser, 'cluster-topic-big')).waitForDisplayed({ timeout: 60000 });
  figures.connect_to_topics_listed_ms = Date.now() - connectStarted;

  const refresh = [];
  for (let i = 0; i < RUNS; i++) refresh.push(ok(await timeClick(browser, '[data-testid="cluster-refresh"]', 'refreshed'), 'refresh'));
  figures.topics_refresh_ms = Math.round(median(refresh));

  const first = [];
  for (let i = 0; i < RUNS; i++) {
    if (i > 0) {
      // Elsewhere in the partition first, so that each run reads and shows the first page again.
      await setValue(await byId(browser, 'cluster-offset'), '1000');
      ok(await timeClick(browser, '[data-testid="cluster-go"]', 'first-offset', '1,000'), 'offset 1000');
    }
    first.push(ok(await timeClick(browser, '[data-testid="cluster-topic-big"]', 'first-offset', '0'), 'first page'));
  }
  figures.first_page_ms = Math.round(median(first));

  // A time in the middle: record i is at T0 + i ms in partition i % 4; partition 0's first record at
  // or after T0 + N/2 ms is i = N/2 (N/2 % 4 == 0), its offset N/8.
  const jumps = [];
  for (let i = 0; i < RUNS; i++) {
    const at = new Date(T0 + N / 2 + i * 4).toISOString();
    await setValue(await byId(browser, 'cluster-time'), at);
    const want = (N / 8 + i).toLocaleString('en-US');
    jumps.push(ok(await timeClick(browser, '[data-testid="cluster-jump"]', 'first-offset', want), 'jump'));
  }
  figures.jump_to_time_ms = Math.round(median(jumps));

  await (await byId(browser, 'cluster-search-mode')).selectByAttribute('value', 'cel');
  await setValue(await byId(browser, 'cluster-search-text'), 'value.country == "JP" && value.amount > 990');
  const searches = [];
  for (let i = 0; i < RUNS; i++) {
    await (await byId(browser, 'cluster-search-go')).waitForExist({ timeout: 600000 });
    searches.push(ok(await timeClick(browser, '[data-testid="cluster-search-go"]', 'searched'), 'search'));
    console.log(`# search ${i + 1}: ${Math.round(searches[i])} ms: ${await (await byId(browser, 'cluster-search-state')).getText()}`);
  }
  const state = await (await byId(browser, 'cluster-search-state')).getText();
  figures.search = { ms_median: Math.round(median(searches)), per_second: Math.round(N / (median(searches) / 1000)), said: state };
  await shot(browser, 'cluster-bench-search');
  figures.search_vs_confluent = Math.round((figures.search.per_second / figures.confluent_read.per_second) * 100) / 100;

  console.log(JSON.stringify(figures, null, 2));
  fs.mkdirSync(path.dirname(JSON_OUT), { recursive: true });
  fs.writeFileSync(JSON_OUT, JSON.stringify(figures, null, 2) + '\n');
} finally {
  await browser?.deleteSession().catch(() => {});
  broker.kill('SIGKILL');
  fs.rmSync(work, { recursive: true, force: true });
}
