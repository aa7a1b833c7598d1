// The cost of a big group's page (its work stops when it goes), in the real app under Xvfb: a group
// reading a 300-partition and a 1,000-partition topic (three days of messages, commits over
// those days). For each group, twice: the time from the click to the page showing its
// partitions (offsets and map), the CPU seconds the visit costs (the app's process and its
// WebKit processes, from the click until they are idle again), and the CPU seconds in the
// 10 s from 2 s after leaving the page for a topic, beside the same figure for the app at rest on
// that topic before any group was opened (work for a screen stops when the screen goes).
//
// Not a test file (no *.test.mjs): run it with scripts/e2e.sh --run node group.bench.mjs, with
// TWAINMQ_APP and TWAINMQ_BIN naming the (release) builds; figures on stdout and in
// BENCH_JSON (artifacts/group-bench.json). Knobs: BENCH_PER_PARTITION (1000 messages),
// BENCH_DAYS (3: a file a partition a day), BENCH_STORE (the store's folder: one made there by an earlier run is measured as it is).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApp, cli, CLI, APP, ARTIFACTS, byId, until, readProcs } from './harness.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '../..');
const WORK = process.env.E2E_WORK ?? fs.mkdtempSync(path.join(os.tmpdir(), 'twainmq-groupbench-'));
const ARTIFACTS_DIR = ARTIFACTS;
const JSON_OUT = process.env.BENCH_JSON ?? path.join(root, 'artifacts/group-bench.json');
const PER_PARTITION = Number(process.env.BENCH_PER_PARTITION ?? 1000);
const DAYS = Number(process.env.BENCH_DAYS ?? 3);
const DAY = 86_400;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** Run the CLI as if it were `secs` seconds from now (its clock offset). */
function cliAt(store, secs, args) {
  const r = spawn(CLI, ['--store', store, ...args], { env: { ...process.env, TWAINMQ_CLOCK_OFFSET_SECS: String(secs) }, stdio: ['pipe', 'ignore', 'pipe'] });
  return r;
}

async function produce(store, topic, n, offsetSecs) {
  const child = cliAt(store, offsetSecs, ['produce', topic, '--jsonl', '--batch']);
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const CHUNK = 5000;
  for (let i = 0; i < n; i += CHUNK) {
    let s = '';
    for (let k = i; k < Math.min(n, i + CHUNK); k++) s += `{"key":${k},"payload":${JSON.stringify(JSON.stringify({ n: k, level: k % 10 === 0 ? 'error' : 'info' }))}}\n`;
    if (!child.stdin.write(s)) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  if ((await exited) !== 0) throw new Error(`producing into ${topic}: ${err}`);
}

async function consume(store, topic, group, max, offsetSecs) {
  const child = cliAt(store, offsetSecs, ['consume', topic, '--group', group, '--max', String(max), '--rebalance-window', '0.2', '--commit-every', String(Math.max(1, Math.floor(max / 20)))]);
  child.stdin.end();
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  if ((await new Promise((resolve) => child.on('exit', resolve))) !== 0) throw new Error(`consuming ${topic} in ${group}: ${err}`);
}

async function makeStore() {
  // BENCH_STORE: where the store goes; one an earlier run made there is measured again as it is
  // (a before/after pair on the same files).
  const store = process.env.BENCH_STORE ?? path.join(WORK, 'wide-groups');
  if (process.env.BENCH_STORE && fs.existsSync(path.join(store, 'wide1000.twc'))) return store;
  fs.rmSync(store, { recursive: true, force: true });
  fs.mkdirSync(store, { recursive: true });
  for (const parts of [300, 1000]) {
    const topic = `wide${parts}`;
    cli(store, 'topics', 'create', topic, '--key-type', 'u32', '--partitions', String(parts));
    const perDay = Math.floor((PER_PARTITION * parts) / DAYS);
    // DAYS days of messages (a file a partition a day), and the group reading along: a third of
    // each day's read that day.
    for (let d = DAYS - 1; d >= 0; d--) {
      await produce(store, topic, perDay, -d * DAY - 3600);
      await consume(store, topic, `g${parts}`, Math.floor(perDay / 3), -d * DAY - 1800);
    }
  }
  return store;
}

/** The app's process (this run's: the newest) and every process under it. */
function appTree() {
  const procs = readProcs();
  const real = fs.realpathSync(APP);
  const apps = [...procs.values()].filter((p) => p.exe === real).sort((a, b) => b.pid - a.pid);
  if (apps.length === 0) throw new Error(`no ${APP} process`);
  const tree = [apps[0]];
  for (let i = 0; i < tree.length; i++) for (const p of procs.values()) if (p.ppid === tree[i].pid) tree.push(p);
  return tree;
}

/** CPU seconds (user + system) of these processes, by name. */
function cpu(tree) {
  const out = {};
  for (const p of tree) {
    try {
      const f = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      out[`${p.name}:${p.pid}`] = (Number(rest[11]) + Number(rest[12])) / 100;
    } catch {
      /* gone */
    }
  }
  return out;
}

const total = (c) => Object.values(c).reduce((a, b) => a + b, 0);
const diff = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k.split(':')[0], Math.round(((b[k] ?? 0) - (a[k] ?? 0)) * 100) / 100]));

/** Wait until the processes use under 5% of a core for 3 s (at most `maxS`): the CPU seconds meanwhile. */
async function untilIdle(tree, since, maxS = 180) {
  const t0 = performance.now();
  let prev = cpu(tree);
  let quiet = 0;
  while ((performance.now() - t0) / 1000 < maxS && quiet < 3) {
    await sleep(1000);
    const now = cpu(tree);
    quiet = total(now) - total(prev) < 0.05 ? quiet + 1 : 0;
    prev = now;
  }
  const end = cpu(tree);
  return { cpu_s: Math.round((total(end) - total(since)) * 100) / 100, by_process: diff(since, end), busy_s: Math.round((performance.now() - t0) / 100) / 10 - quiet };
}

async function visit(browser, group, parts, perfName = null) {
  const tree = appTree();
  // BENCH_PERF=1: `perf record` the app's own process during the first visit of each group.
  const perf = perfName ? spawn('perf', ['record', '-F', '499', '-g', '--call-graph', 'dwarf,16384', '-p', String(tree[0].pid), '-o', path.join(ARTIFACTS_DIR, `${perfName}.perf.data`)], { stdio: 'ignore' }) : null;
  if (perf) await sleep(1000);
  const before = cpu(tree);
  const t0 = performance.now();
  await (await browser.$(`[data-testid="group-item-${group}"] button`)).click();
  await until(
    browser,
    async () =>
      browser.execute(
        (g, n) => document.querySelector('[data-testid=group-view]')?.getAttribute('data-group') === g && document.querySelectorAll('[data-testid=group-map-cell]').length === n,
        group,
        parts,
      ),
    `${group}'s page`,
    120000,
  );
  const shownMs = Math.round(performance.now() - t0);
  const idle = await untilIdle(tree, before);
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((r) => perf.on('exit', r));
  }
  // Leave for a topic: what still runs for the group's page, measured as at rest (from 2 s
  // after the click, for 10 s: the topic's own first load is not the group page's).
  await (await byId(browser, 'topic-item-wide300')).click();
  await sleep(2000);
  const left = cpu(tree);
  await sleep(10000);
  const after = cpu(tree);
  return { shown_ms: shownMs, visit_cpu_s: idle.cpu_s, busy_s: idle.busy_s, by_process: idle.by_process, after_leaving_10s_cpu_s: Math.round((total(after) - total(left)) * 100) / 100 };
}

log(`building the store (${PER_PARTITION} messages a partition over ${DAYS} days)`);
const store = await makeStore();
log('store ready');
const browser = await startApp(store);
const figures = { app: APP, per_partition: PER_PARTITION, days: DAYS, groups: {} };
try {
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 60000 });
  await until(browser, async () => (await browser.$('[data-testid="group-item-g1000"] button').isExisting()), 'the groups listed', 60000);
  await untilIdle(appTree(), cpu(appTree()), 60);
  // The app at rest on a topic, for comparison: what 10 s cost without the group page.
  await (await byId(browser, 'topic-item-wide300')).click();
  await sleep(2000);
  const rest0 = cpu(appTree());
  await sleep(10000);
  figures.at_rest_10s_cpu_s = Math.round((total(cpu(appTree())) - total(rest0)) * 100) / 100;
  log(`at rest on a topic: ${figures.at_rest_10s_cpu_s} CPU s in 10 s`);
  for (const parts of [300, 1000]) {
    const g = `g${parts}`;
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const r = await visit(browser, g, parts, process.env.BENCH_PERF && i === 0 ? `group-${g}` : null);
      log(`${g} visit ${i + 1}: shown in ${r.shown_ms} ms; ${r.visit_cpu_s} CPU s until idle (${r.busy_s} s busy; ${JSON.stringify(r.by_process)}); ${r.after_leaving_10s_cpu_s} CPU s in the 10 s after leaving`);
      runs.push(r);
    }
    figures.groups[g] = runs;
  }
} finally {
  await browser.deleteSession().catch(() => {});
}
fs.mkdirSync(path.dirname(JSON_OUT), { recursive: true });
fs.writeFileSync(JSON_OUT, JSON.stringify(figures, null, 2));
log(`figures in ${JSON_OUT}`);
