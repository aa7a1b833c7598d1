// The real app in a small window (900x600) with the detail pane open: the payload column
// keeps its room, the raw line stays inside its pane (never over the footer), the topic's
// name keeps its room over its metadata, and the sidebar folds away for more room.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startApp, fixtureStore, byId, until, rows, shotsBothThemes, CLI } from './harness.mjs';

let browser;
let store;

before(async () => {
  store = fixtureStore('small-window');
  browser = await startApp(store);
  await browser.setWindowSize(900, 600);
  await (await byId(browser, 'topic-item-events')).waitForExist({ timeout: 20000 });
});

after(async () => {
  await browser?.deleteSession();
});

/** Boxes of what the layout promises, in CSS pixels. */
async function measure() {
  return browser.execute(() => {
    const box = (el) => (el ? el.getBoundingClientRect() : null);
    const h1 = document.querySelector('.view-head h1');
    const payload = document.querySelector('[data-testid="message-row"] .c-payload');
    const raw = document.querySelector('[data-testid="detail-raw"]');
    const footer = document.querySelector('[data-testid="status-bar"]');
    const time = document.querySelector('[data-testid="message-row"] .c-time');
    return {
      width: window.innerWidth,
      nameCut: h1 ? h1.scrollWidth > h1.clientWidth : null,
      payloadWidth: box(payload)?.width ?? 0,
      tableWidth: box(payload?.closest('[data-testid="message-row"]')?.parentElement)?.width ?? 0,
      // Inside what the table shows, not scrolled off to its right.
      payloadVisible: !!payload && box(payload).left < (box(payload.closest('[data-testid="message-row"]')?.parentElement)?.right ?? 0) - 30,
      timeCut: time ? time.scrollWidth > time.clientWidth : null,
      rawBottom: box(raw)?.bottom ?? null,
      footerTop: box(footer)?.top ?? null,
    };
  });
}

test('at 900x600 with the detail pane open, the payload, the raw line and the name keep their places', async () => {
  await (await byId(browser, 'topic-item-events')).click();
  await until(browser, async () => (await rows(browser)).length > 3, 'rows of events', 10000);
  await browser.execute(() => document.querySelectorAll('[data-testid="message-row"]')[1]?.closest('[role="row"]')?.click());
  await (await byId(browser, 'detail-pane')).waitForDisplayed({ timeout: 5000 });
  await until(browser, async () => (await byId(browser, 'detail-raw-text')).isExisting(), 'the raw line', 10000);
  const m = await measure();
  assert.ok(m.width <= 920, `the window is small (${m.width} px)`);
  assert.equal(m.nameCut, false, 'the topic name is whole');
  assert.ok(m.payloadWidth >= 60, `the payload column is there (${m.payloadWidth} px)`);
  assert.ok(m.payloadVisible, 'the payload column is in view, not past the right edge of the table');
  assert.ok(m.rawBottom !== null && m.footerTop !== null && m.rawBottom <= m.footerTop + 0.5, `the raw line stays above the footer (${m.rawBottom} <= ${m.footerTop})`);
  await shotsBothThemes(browser, 'small-window-detail');
  // Folding the sidebar gives its room to the table (unfolded again whatever happens: the
  // choice is remembered, and the next test files expect the sidebar).
  await (await byId(browser, 'sidebar-toggle')).click();
  try {
    await until(browser, async () => !(await browser.$('nav.sidebar').isExisting()), 'the sidebar folded');
    const folded = await measure();
    // The time gave way in the narrow table; folded, the table is no narrower, the payload kept
    // its room and stays in view (the time's whole text is in its title and the detail pane).
    assert.equal(m.timeCut, true, 'the time gave way in the narrow table');
    assert.ok(folded.tableWidth >= m.tableWidth, `the table is no narrower (${m.tableWidth} -> ${folded.tableWidth} px)`);
    assert.ok(folded.payloadWidth >= m.payloadWidth, `the payload column kept its room (${m.payloadWidth} -> ${folded.payloadWidth} px)`);
    assert.ok(folded.payloadVisible, 'the payload column is in view');
    await shotsBothThemes(browser, 'small-window-folded');
  } finally {
    await (await byId(browser, 'sidebar-toggle')).click();
    await (await browser.$('nav.sidebar')).waitForExist({ timeout: 5000 });
  }
});

test('the group page: members by kind of client, offsets sortable and filterable', async () => {
  await browser.setWindowSize(1280, 800);
  // A CLI member (a separate process) joins a new group: the page names it, with host and pid.
  const member = spawn(CLI, ['--store', store, 'consume', 'events', '--group', 'by_cli', '--follow', '--rebalance-window', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const cliItem = await browser.$('[data-testid="group-item-by_cli"] button');
    await cliItem.waitForExist({ timeout: 15000 });
    await cliItem.click();
    const kind = await until(
      browser,
      async () => browser.execute(() => document.querySelector('[data-testid="member-client"]')?.textContent ?? ''),
      'the member kind',
      15000,
      async () => browser.execute(() => document.querySelector('[data-testid="group-view"]')?.textContent?.slice(0, 400) ?? 'no group view'),
    );
    assert.match(kind, new RegExp(`^twainmq CLI \\S+ on \\S+, pid ${member.pid}$`));
    await shotsBothThemes(browser, 'group-page-cli-member');
  } finally {
    member.kill('SIGTERM');
  }
  const item = await browser.$('[data-testid="group-item-workers"] button');
  await item.waitForExist({ timeout: 10000 });
  await item.click();
  await (await byId(browser, 'group-offsets')).waitForDisplayed({ timeout: 10000 });
  await (await byId(browser, 'group-offsets-sort-lag')).click();
  await shotsBothThemes(browser, 'group-page-offsets');
});
