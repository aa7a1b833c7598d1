// What each screen says, in the real app: a second window that uses the backend, the
// truth after retention (no false banner, lag what is left to read), exports that never replace
// a file unasked, following a busy log, the demo kept out of real groups, the group page's
// steady layout, the topics overview, and a screenshot of each mended screen, dark and light
// (artifacts/e2e/screens-*-{dark,light}.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startApp, fixtureStore, cli, CLI, ARTIFACTS, byId, until, shot, rows, setValue, setTheme, shotsBothThemes } from './harness.mjs';

let browser;
let store;
let out;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  store = fixtureStore('screens');
  out = path.join(path.dirname(store), 'screens-out');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  browser = await startApp(store);
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
});

const text = async (id) => (await byId(browser, id)).getText();

/** A test whose failure leaves a screenshot (screens-failed-N.png) of what was on screen. */
let failures = 0;
function step(name, fn) {
  test(name, async () => {
    try {
      await fn();
    } catch (e) {
      await shot(browser, `screens-failed-${++failures}`).catch(() => {});
      throw e;
    }
  });
}

/** A topic's Messages tab (the tab chosen stays from topic to topic). */
async function openTopic(name) {
  await (await byId(browser, `topic-item-${name}`)).click();
  await (await byId(browser, 'tab-messages')).click();
}

/** Record the commands the page invokes (name and time), to see what a screen still asks for. */
async function recordInvokes() {
  // The webview's invoke cannot be replaced (its property is not configurable); what it sends
  // can be seen: a fetch of ipc://localhost/COMMAND, or else a message on window.ipc.
  const state = await browser.executeAsync((done) => {
    if (window.__invokedCommands) return done('installed before');
    const rec = (window.__invokedCommands = []);
    const fetch0 = window.fetch.bind(window);
    window.fetch = (input, init) => {
      const url = typeof input === 'string' ? input : input?.url ?? '';
      const m = /^ipc:\/\/localhost\/([^?]+)/.exec(url) ?? /\/\/ipc\.localhost\/([^?]+)/.exec(url);
      if (m) rec.push([decodeURIComponent(m[1]), performance.now()]);
      return fetch0(input, init);
    };
    if (window.ipc?.postMessage) {
      const post0 = window.ipc.postMessage.bind(window.ipc);
      try {
        window.ipc.postMessage = (msg) => {
          try {
            rec.push([JSON.parse(msg).cmd, performance.now()]);
          } catch {
            /* not a command */
          }
          return post0(msg);
        };
      } catch {
        /* read-only: fetch only */
      }
    }
    void window.__TAURI_INTERNALS__.invoke('about', {}).finally(() => done(rec.some(([c]) => c === 'about') ? 'ok' : 'the commands the page sends cannot be seen'));
  });
  assert.ok(state === 'ok' || state === 'installed before', state);
}
const invokedSince = (t0) => browser.execute((t) => window.__invokedCommands.filter(([, at]) => at >= t).map(([c]) => c), t0);
const pageNow = () => browser.execute(() => performance.now());

step('with no topic picked, the main pane lists every topic, largest first, sorts and hides empty ones, and a row opens its topic (dark and light)', async () => {
  await (await byId(browser, 'topics-overview')).waitForDisplayed({ timeout: 10000 });
  const names = JSON.parse(cli(store, 'topics', 'list', '--json')).map((t) => t.name);
  const listed = () => browser.execute(() => [...document.querySelectorAll('[data-testid="overview-name"]')].map((e) => e.textContent));
  const counts = () => browser.execute(() => [...document.querySelectorAll('[data-testid="overview-messages"]')].map((e) => BigInt(e.textContent.replace(/,/g, '')).toString()));
  await until(browser, async () => (await listed()).length === names.length, 'every topic listed', 10000, async () => (await listed()).join(', '));
  assert.deepEqual([...(await listed())].sort(), [...names].sort());
  const byCount = (await counts()).map(BigInt);
  assert.ok(byCount.every((c, i) => i === 0 || byCount[i - 1] >= c), `largest first: ${byCount.join(', ')}`);
  assert.ok(byCount[0] > 0n, 'the fixture has messages');
  await shotsBothThemes(browser, 'screens-topics-overview');
  await (await byId(browser, 'overview-sort-name')).click();
  assert.deepEqual(await listed(), [...names].sort());
  await (await byId(browser, 'overview-hide-empty')).click();
  const kept = await listed();
  assert.ok(!kept.includes('empty') && kept.length === names.length - 1, `the empty topic hidden: ${kept.join(', ')}`);
  await (await byId(browser, 'overview-hide-empty')).click();
  const first = (await browser.$$('[data-testid="overview-row"] button'))[0];
  await first.click();
  await (await byId(browser, 'tab-messages')).waitForDisplayed({ timeout: 10000 });
  assert.equal(await browser.execute(() => document.querySelector('[data-testid="topics-overview"]') === null), true, 'the topic replaced the overview');
});

step('a window made at run time lists topics and reads messages; an empty one lists recent stores', async () => {
  const second = fixtureStore('screens-second');
  const main = await browser.getWindowHandle();
  const handles = async () => browser.getWindowHandles();
  const before = await handles();
  // File → New Window with a store (what a second launch with a path does too).
  await browser.execute((p) => window.__TAURI_INTERNALS__.invoke('new_window', { path: p }), second);
  const made = await until(browser, async () => (await handles()).find((h) => !before.includes(h)), 'the new window', 20000);
  await browser.switchToWindow(made);
  try {
    await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
    assert.match(await browser.execute(() => document.title), new RegExp(`^${second} — TwainMQ Desktop`));
    assert.equal(await browser.$('[data-testid="welcome-error"]').isExisting(), false, 'no "not allowed on window" error');
    await (await byId(browser, 'topic-item-events')).click();
    await until(browser, async () => (await rows(browser)).length > 0, 'messages in the second window', 15000);
    assert.match(await text('row-range'), /of 240/);
    await shotsBothThemes(browser, 'screens-second-window');
    await browser.closeWindow();
  } finally {
    await browser.switchToWindow(main);
  }
  // An empty window (File → New Window): the welcome screen lists the recent stores.
  const before2 = await handles();
  await browser.execute(() => window.__TAURI_INTERNALS__.invoke('new_window', { path: null }));
  const empty = await until(browser, async () => (await handles()).find((h) => !before2.includes(h)), 'the empty window', 20000);
  await browser.switchToWindow(empty);
  try {
    await (await byId(browser, 'welcome')).waitForDisplayed({ timeout: 20000 });
    await until(browser, async () => (await browser.$$('[data-testid="recent-store"]')).length > 0, 'recent stores listed', 10000);
    const recent = await browser.execute(() => [...document.querySelectorAll('[data-testid="recent-store"]')].map((e) => e.textContent));
    assert.ok(recent.includes(store), `the first window's store is listed (${recent.join(', ')})`);
    assert.equal(await browser.$('[data-testid="welcome-error"]').isExisting(), false);
    await shotsBothThemes(browser, 'screens-empty-window');
    await browser.closeWindow();
  } finally {
    await browser.switchToWindow(main);
  }
});

step('"Save and delete now" is labelled, says only what happened, no false banner; lag is what is left to read', async () => {
  await (await byId(browser, 'topic-item-events')).click();
  await until(browser, async () => (await rows(browser)).length > 0, 'rows of events');
  await (await byId(browser, 'tab-retention')).click();
  await (await byId(browser, 'retention-panel')).waitForDisplayed();
  await setValue(await byId(browser, 'retention-days'), '1');
  await (await byId(browser, 'retention-force')).click();
  await until(browser, async () => (await byId(browser, 'retention-plan-losing')).isExisting(), 'the forced preview', 10000);
  await (await byId(browser, 'retention-apply')).click();
  const go = await byId(browser, 'retention-confirm-delete');
  await go.waitForDisplayed();
  // The red button's text is readable (its colour is not the red of its background).
  const look = await browser.execute(() => {
    const b = document.querySelector('[data-testid="retention-confirm-delete"]');
    const s = getComputedStyle(b);
    return { text: b.textContent.trim(), color: s.color, background: s.backgroundColor };
  });
  assert.match(look.text, /^Delete \d+ files$/);
  assert.notEqual(look.color, look.background, `label colour ${look.color} on ${look.background}`);
  await shotsBothThemes(browser, 'screens-retention-confirm');
  await go.click();
  const done = await byId(browser, 'retention-done-totals');
  await done.waitForDisplayed({ timeout: 15000 });
  assert.match(await done.getText(), /^Deleted \d+ files: [\d,]+ messages/);
  assert.doesNotMatch(await text('retention-saved'), /Nothing was deleted/);
  await shotsBothThemes(browser, 'screens-retention-done');
  // No banner that the topic was deleted and made again (the settings change kept its identity).
  await sleep(3000);
  assert.equal(await browser.$('[data-testid="topic-remade"]').isExisting(), false, 'no false "deleted and made again" banner');
  await (await byId(browser, 'tab-messages')).click();
  await (await byId(browser, 'row-range')).waitForDisplayed({ timeout: 10000 });
  assert.equal(await browser.$('[data-testid="topic-remade"]').isExisting(), false);

  // The group's lag is what a member would read: from its commit or the first offset left
  // (a few new messages, so that something is left to read).
  for (let k = 0; k < 8; k++) cli(store, 'produce', 'events', '--key', String(k), `after retention ${k}`);
  const topic = JSON.parse(cli(store, 'topics', 'describe', 'events', '--json'));
  const group = JSON.parse(cli(store, 'groups', 'describe', 'workers', '--json'));
  const left = topic.partition_details.map((p) => {
    const c = group.committed[String(p.partition)];
    const from = c === undefined ? p.start : c < 0 ? p.end : Math.max(c, p.start);
    return Math.max(0, p.end - from);
  });
  assert.deepEqual(group.partitions.map((p) => p.lag), left, '`twainmq groups describe` counts what is left to read');
  await (await browser.$('[data-testid="group-item-workers"] button')).click();
  await until(browser, async () => (await browser.$$('[data-testid="group-offsets-row"]')).length === left.length, 'the group view');
  const shown = await browser.execute(() => [...document.querySelectorAll('[data-testid="group-offsets-row"]')].map((r) => Number(r.getAttribute('data-lag'))));
  assert.deepEqual(shown, left, 'the app shows the same lag');
  assert.equal(await browser.execute(() => document.querySelector('[data-testid="group-offsets-total"]')?.textContent), left.reduce((a, b) => a + b, 0).toLocaleString('en-US'));
  await shotsBothThemes(browser, 'screens-lag-after-retention');
});

step('an export never replaces a file unasked, and the extension follows the format', async () => {
  await openTopic('names');
  await until(browser, async () => (await rows(browser)).length > 0, 'rows of names');
  await (await byId(browser, 'export-open')).click();
  await (await byId(browser, 'export-dialog')).waitForDisplayed();
  const jsonl = path.join(out, 'hits.jsonl');
  await setValue(await byId(browser, 'export-path-input'), jsonl);
  await (await byId(browser, 'export-submit')).click();
  await (await byId(browser, 'export-result')).waitForDisplayed({ timeout: 15000 });
  const written = fs.readFileSync(jsonl, 'utf8');
  assert.ok(written.startsWith('{'), 'JSONL written');
  // Export again: the file is there, so nothing is written and the dialog asks.
  await (await byId(browser, 'export-submit')).click();
  const ask = await byId(browser, 'export-exists');
  await ask.waitForDisplayed({ timeout: 15000 });
  assert.match(await ask.getText(), /hits\.jsonl is already there\. Nothing was written\./);
  assert.equal(fs.readFileSync(jsonl, 'utf8'), written, 'the file is as it was');
  assert.deepEqual(fs.readdirSync(out).filter((f) => f.includes('partial')), [], 'no partial file left');
  await shotsBothThemes(browser, 'screens-export-exists');
  await (await byId(browser, 'export-keep')).click();
  // CSV: the name follows the format; hits.jsonl is never written as CSV.
  await (await byId(browser, 'export-format-csv')).click();
  await until(browser, async () => (await (await byId(browser, 'export-path-input')).getValue()) === path.join(out, 'hits.csv'), 'the .csv name');
  await (await byId(browser, 'export-submit')).click();
  await (await byId(browser, 'export-result')).waitForDisplayed({ timeout: 15000 });
  assert.equal(fs.readFileSync(jsonl, 'utf8'), written, 'hits.jsonl still holds JSONL');
  assert.ok(fs.readFileSync(path.join(out, 'hits.csv'), 'utf8').startsWith('partition,offset,'));
  // Replace, when asked for.
  await (await byId(browser, 'export-submit')).click();
  await (await byId(browser, 'export-exists')).waitForDisplayed({ timeout: 15000 });
  await (await byId(browser, 'export-replace')).click();
  await (await byId(browser, 'export-result')).waitForDisplayed({ timeout: 15000 });
  await shotsBothThemes(browser, 'screens-export-replaced');
  await browser.keys('Escape');
  await (await byId(browser, 'export-dialog')).waitForExist({ reverse: true });
});

/** Another process writing `topic` at `rate` messages a second, each payload `seq N`; stop() ends it. */
function producer(topic, rate) {
  const child = spawn(CLI, ['--store', store, 'produce', topic, '--jsonl'], { stdio: ['pipe', 'ignore', 'inherit'] });
  let seq = 0;
  const per = Math.max(1, Math.round(rate / 100));
  const timer = setInterval(() => {
    let s = '';
    for (let i = 0; i < per; i++) s += `{"key":${seq % 4},"payload":"seq ${seq++}"}\n`;
    child.stdin.write(s);
  }, 10);
  return {
    get sent() {
      return seq;
    },
    async stop() {
      clearInterval(timer);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.on('exit', r));
      child.stdin.end();
      await gone;
    },
  };
}

step('following a topic written at 2,000 msg/s keeps up after click, Esc, F (four times)', async () => {
  cli(store, 'topics', 'create', 'busy', '--key-type', 'u16', '--partitions', '4');
  const p = producer('busy', 2000);
  try {
    await until(browser, async () => (await browser.$('[data-testid="topic-item-busy"]').isExisting()), 'busy listed', 10000);
    await openTopic('busy');
    await until(browser, async () => (await rows(browser)).length > 3, 'rows of busy', 15000);
    const newestShown = () =>
      browser.execute(() => Math.max(-1, ...[...document.querySelectorAll('[data-testid="message-row"]')].map((r) => Number(/seq (\d+)/.exec(r.textContent ?? '')?.[1] ?? -1))));
    for (let round = 0; round < 4; round++) {
      // Click a row (follow stops), Esc, F.
      await browser.execute(() => document.querySelectorAll('[data-testid="message-row"]')[2]?.closest('[role="row"]')?.click());
      await browser.keys('Escape');
      await sleep(700);
      if ((await (await byId(browser, 'follow-toggle')).getAttribute('aria-pressed')) !== 'true') await browser.keys('f');
      assert.equal(await (await byId(browser, 'follow-toggle')).getAttribute('aria-pressed'), 'true');
      const target = p.sent;
      await until(browser, async () => (await newestShown()) >= target, `try ${round + 1}: the newest rows (seq ${target}) on screen`, 8000, async () => `newest shown seq ${await newestShown()}, follow-behind: ${await browser.execute(() => document.querySelector('[data-testid="follow-behind"]')?.textContent ?? 'none')}`);
      // And it goes on following.
      const later = p.sent;
      await until(browser, async () => (await newestShown()) >= later, `try ${round + 1}: still following`, 8000);
      assert.equal(await browser.$('[data-testid="follow-behind"]').isExisting(), false, 'no stall reported while it keeps up');
    }
    await shotsBothThemes(browser, 'screens-follow-busy');
  } finally {
    await p.stop();
  }
});

step('a single click shows a message; its JSON is a tree that folds and copies paths', async () => {
  await openTopic('typed');
  await until(browser, async () => (await rows(browser)).length > 3, 'rows of typed');
  await browser.execute(() => document.querySelectorAll('[data-testid="message-row"]')[1]?.closest('[role="row"]')?.click());
  await (await byId(browser, 'detail-pane')).waitForDisplayed({ timeout: 5000 });
  await (await byId(browser, 'detail-tab-json')).click();
  await (await byId(browser, 'json-tree')).waitForDisplayed();
  const paths = await browser.execute(() => [...document.querySelectorAll('[data-testid="json-node"]')].map((n) => n.getAttribute('data-path')));
  assert.equal(paths[0], 'value');
  assert.ok(paths.length > 2, paths.join(' '));
  await shotsBothThemes(browser, 'screens-json-tree');
  // Switching topics (busy, then typed) said nothing false of either.
  assert.doesNotMatch(await browser.execute(() => document.querySelector('[data-testid="status-message"]')?.textContent ?? ''), /deleted and made again/);
  // Fold everything, then unfold.
  await (await byId(browser, 'json-collapse-all')).click();
  await (await byId(browser, 'json-expand-all')).click();
  assert.equal(await browser.execute(() => document.querySelectorAll('[data-testid="json-node"]').length), paths.length);
  await browser.keys('Escape');
});

step('the demo asks before joining a group with a live consumer of its own', async () => {
  // A consumer this app did not start, reading along in group "real".
  const outside = spawn(CLI, ['--store', store, 'consume', 'names', '--group', 'real', '--follow', '--rebalance-window', '0.3', '--auto-round', '2'], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await until(browser, async () => (await browser.$('[data-testid="group-item-real"] button').isExisting()), 'group real listed', 20000);
    await sleep(1500);
    await (await browser.$('[data-testid="group-item-real"] button')).click();
    await (await byId(browser, 'demo-add')).waitForDisplayed({ timeout: 15000 });
    await (await byId(browser, 'demo-add')).click();
    const ask = await byId(browser, 'demo-in-use');
    await ask.waitForDisplayed({ timeout: 10000 });
    assert.match(await ask.getText(), /1 member this app did not start \(m\d+\).*would never process those messages/s);
    assert.equal((await browser.$$('[data-testid="demo-member"]')).length, 0, 'nothing started');
    await shotsBothThemes(browser, 'screens-demo-asks');
    await (await byId(browser, 'demo-in-use-cancel')).click();
    assert.equal((await browser.$$('[data-testid="demo-member"]')).length, 0);
  } finally {
    if (outside.exitCode === null && outside.signalCode === null) {
      const gone = new Promise((r) => outside.on('exit', r));
      outside.kill('SIGTERM');
      await gone;
    }
  }
});

step('a demo group: killed says killed, the chart shows its life, the banner keeps its place, work stops when the page goes', async () => {
  await recordInvokes();
  await (await byId(browser, 'topic-item-names')).click();
  await (await byId(browser, 'tab-groups')).click();
  await setValue(await byId(browser, 'demo-group-name'), 'demo-pair');
  await setValue(await byId(browser, 'demo-group-window'), '400');
  await setValue(await byId(browser, 'demo-group-rate'), '5');
  await (await byId(browser, 'demo-group-start')).click();
  await until(browser, async () => (await browser.execute(() => document.querySelector('[data-testid="group-view"]')?.getAttribute('data-group'))) === 'demo-pair', 'the demo group', 15000);
  await until(browser, async () => (await browser.$$('[data-testid="group-member"]')).length === 1, 'the first member', 20000);
  await setValue(await byId(browser, 'demo-window'), '400');
  await setValue(await byId(browser, 'demo-rate'), '5');
  await (await byId(browser, 'demo-add')).click();
  // The status names the member as the lists do (m2), not by the app's handle.
  const status = () => browser.execute(() => document.querySelector('[data-testid="status-message"]')?.textContent ?? '');
  await until(browser, async () => /Started demo member m\d+ in demo-pair/.test(await status()), 'the status naming the member', 15000, status);
  await until(browser, async () => (await browser.$$('[data-testid="group-member"]')).length === 2, 'two members', 20000);
  // The lag chart of a group seconds old: not a sliver of 24 h (the last hour, said so, unless the
  // span saved from before, by the other suites, is the hour or the whole life already).
  const span = () => browser.execute(() => document.querySelector('[data-testid="lag-history"]')?.getAttribute('data-span'));
  await until(browser, async () => ['hour', 'all'].includes(await span()), 'the chart on the last hour or the whole life', 15000, span);
  if (await browser.$('[data-testid="lag-history-fitted"]').isExisting()) assert.match(await text('lag-history-fitted'), /^Showing the last hour: the group is under a minute old\.$/);

  // The page does not move when a round opens and ends.
  const cardTop = () => browser.execute(() => Math.round(document.querySelector('[data-testid="group-map"]').getBoundingClientRect().top));
  const idleTop = await cardTop();
  await setValue(await byId(browser, 'demo-window'), '4000');
  await (await byId(browser, 'demo-round')).click();
  await (await byId(browser, 'round-banner')).waitForDisplayed({ timeout: 10000 });
  assert.equal(await cardTop(), idleTop, 'the map stays where it was while the banner shows');
  await shotsBothThemes(browser, 'screens-group-round-open');
  await (await byId(browser, 'round-idle')).waitForDisplayed({ timeout: 20000 });
  assert.equal(await cardTop(), idleTop, 'and after the round');

  // Kill one: the list says killed, not live.
  const victim = await browser.execute(() => {
    const m = [...document.querySelectorAll('[data-testid="demo-member"]')].find((e) => e.getAttribute('data-status') === 'running');
    m.querySelector('[data-testid="demo-kill"]').click();
    return m.getAttribute('data-member');
  });
  await until(browser, async () => (await browser.execute((id) => document.querySelector(`[data-testid="demo-member"][data-member="${id}"]`)?.getAttribute('data-status'), victim)) === 'killed', 'killed in the demo panel', 10000);
  const badge = await browser.execute((id) => document.querySelector(`[data-testid="group-member"][data-member="${id}"] [data-testid="member-status"]`)?.textContent ?? null, victim);
  assert.ok(badge === null || badge === 'killed', `the member list says ${badge}`);
  await shotsBothThemes(browser, 'screens-group-killed');

  // Leaving the page stops its work: no more reads of the group.
  await (await byId(browser, 'topic-item-names')).click();
  await (await byId(browser, 'tab-messages')).click();
  await sleep(1000);
  const t0 = await pageNow();
  await sleep(12000);
  const asked = await invokedSince(t0);
  for (const c of ['describe_group', 'lag_history', 'demo_members']) assert.ok(!asked.includes(c), `${c} after the group page went: ${asked.join(', ')}`);
});

step('a range re-runs the search, a reset says what moved, an import is done once, counts in words', async () => {
  // A search, then a range preset: the search runs again over the range (no stale hits).
  await (await byId(browser, 'topic-item-names')).click();
  await (await byId(browser, 'tab-messages')).click();
  await setValue(await byId(browser, 'search-input'), 'gamma');
  await (await byId(browser, 'search-go')).click();
  await until(browser, async () => (await byId(browser, 'search-progress')).getAttribute('data-state').then((s) => s === 'done'), 'the search', 15000);
  const allTime = await text('search-count');
  await recordInvokes();
  const t0 = await pageNow();
  await browser.execute(() => {
    const s = document.querySelector('[data-testid="range-preset"]');
    s.value = 'today';
    s.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await until(browser, async () => (await invokedSince(t0)).includes('search'), 'the search run again over the range', 10000);
  await until(browser, async () => /2026|20\d\d-/.test(await text('search-banner')), 'the range in the search banner', 10000);
  await until(browser, async () => (await byId(browser, 'search-progress')).getAttribute('data-state').then((s) => s === 'done'), 'the ranged search', 15000);
  assert.notEqual(await text('search-banner'), '', 'the range is said');
  await shotsBothThemes(browser, 'screens-search-range');
  console.log(`search: all time "${allTime}", today "${await text('search-count')}"`);
  await browser.execute(() => {
    const s = document.querySelector('[data-testid="range-preset"]');
    s.value = 'all';
    s.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await browser.keys('Escape');

  // An offset past the end is moved to the end, and the dry run says so; the footer's comma has its space.
  await (await browser.$('[data-testid="group-item-demo-pair"] button')).click();
  await (await byId(browser, 'reset-open')).click();
  await (await byId(browser, 'reset-target')).selectByAttribute('value', 'offset');
  await setValue(await byId(browser, 'reset-offset-input'), '999999');
  await (await byId(browser, 'reset-dry-run')).click();
  await (await byId(browser, 'reset-clamped-note')).waitForDisplayed({ timeout: 10000 });
  assert.match(await text('reset-clamped-note'), /outside what (it holds|they hold)/);
  assert.match(await (await browser.$('[data-testid="reset-clamped"]')).getText(), /asked 999,999: past the end/);
  await shotsBothThemes(browser, 'screens-reset-clamped');
  await browser.keys('Escape');

  // After an import the button does not offer the same import again.
  const file = path.join(out, 'import.jsonl');
  fs.writeFileSync(file, '{"key":1,"payload":"one"}\n{"key":2,"payload":"two"}\n');
  cli(store, 'topics', 'create', 'inbox');
  await until(browser, async () => (await browser.$('[data-testid="topic-item-inbox"]').isExisting()), 'inbox listed', 10000);
  await openTopic('inbox');
  await (await byId(browser, 'import-open')).click();
  await setValue(await byId(browser, 'import-path-input'), file);
  await (await byId(browser, 'import-check')).click();
  await (await byId(browser, 'import-report')).waitForDisplayed({ timeout: 10000 });
  await (await byId(browser, 'import-submit')).click();
  await (await byId(browser, 'import-result')).waitForDisplayed({ timeout: 10000 });
  const again = await byId(browser, 'import-submit');
  assert.equal(await again.getText(), 'Imported');
  assert.equal(await again.isEnabled(), false);
  await shotsBothThemes(browser, 'screens-import-done');
  await browser.keys('Escape');
  assert.equal(JSON.parse(cli(store, 'topics', 'describe', 'inbox', '--json')).messages, 2, 'imported once');

  // New Topic offers u16 and one partition; a one-topic store says "1 topic".
  await (await byId(browser, 'create-topic')).click();
  assert.equal(await (await byId(browser, 'create-topic-key-type')).getValue(), 'u16');
  assert.equal(await (await byId(browser, 'create-topic-partitions')).getValue(), '1');
  await shotsBothThemes(browser, 'screens-new-topic');
  await browser.keys('Escape');
});

step('a store of one topic says "1 topic"', async () => {
  const one = path.join(path.dirname(store), 'screens-one');
  fs.rmSync(one, { recursive: true, force: true });
  fs.mkdirSync(one);
  cli(one, 'topics', 'create', 'only');
  cli(one, 'produce', 'only', '--key', '1', 'hello');
  await browser.execute((p) => window.__TAURI_INTERNALS__.invoke('open_store', { path: p }), one);
  await browser.refresh();
  await until(browser, async () => /^1 topic · 1 message$/.test(await text('status-totals').catch(() => '')), '"1 topic · 1 message"', 15000, async () => text('status-totals'));
  await shotsBothThemes(browser, 'screens-one-topic');
  await browser.execute((p) => window.__TAURI_INTERNALS__.invoke('open_store', { path: p }), store);
  await browser.refresh();
  await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
});

/** The luminance (0 dark to 1 light) of the app window's native menu bar, from an X screenshot. */
function menuBarLuminance(name) {
  const title = execFileSync('xwininfo', ['-root', '-tree'], { encoding: 'utf8' }).match(/"([^"]*— TwainMQ Desktop)"/)?.[1];
  assert.ok(title, 'the app window');
  const info = execFileSync('xwininfo', ['-name', title], { encoding: 'utf8' });
  const x = Number(/Absolute upper-left X:\s+(-?\d+)/.exec(info)[1]);
  const y = Number(/Absolute upper-left Y:\s+(-?\d+)/.exec(info)[1]);
  const w = Number(/Width:\s+(\d+)/.exec(info)[1]);
  const file = path.join(ARTIFACTS, `${name}.png`);
  // The window's top with its menu bar, as X shows it (WebDriver's screenshots are of the page only).
  execFileSync('import', ['-window', 'root', '-crop', `${w}x120+${Math.max(0, x)}+${Math.max(0, y)}`, '+repage', file]);
  const lum = execFileSync('convert', [file, '-crop', '40x12+4+6', '+repage', '-resize', '1x1!', '-format', '%[fx:luminance]', 'info:'], { encoding: 'utf8' });
  return Number(lum);
}

step('the native menu bar follows the theme', async () => {
  await setTheme(browser, 'dark');
  await sleep(800);
  const dark = menuBarLuminance('screens-menubar-dark');
  await setTheme(browser, 'light');
  await sleep(800);
  const light = menuBarLuminance('screens-menubar-light');
  await setTheme(browser, 'dark');
  assert.ok(dark < 0.35, `the menu bar is dark in the dark theme (luminance ${dark})`);
  assert.ok(light > 0.65, `and light in the light theme (luminance ${light})`);
});
