// Desktop conventions in the real app: menu actions (through their accelerators, as WebDriver
// cannot open a native menu), the shortcuts overlay, the settings screen, the window's size
// coming back, and a second launch opening its store in a new window of the running app.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { remote } from 'webdriverio';
import { APP, byId, fixtureStore, shot, until } from './harness.mjs';

const WORK = process.env.E2E_WORK ?? fs.mkdtempSync('/tmp/twainmq-e2e-');
const CONFIG = path.join(process.env.XDG_CONFIG_HOME ?? path.join(process.env.HOME, '.config'), 'dev.twainmq.desktop');
const STATE = path.join(CONFIG, '.window-state.json');

// A private D-Bus session bus: the single-instance hand-over runs over it (without one the app
// starts normally, as it does for the other suites).
let bus;
let busAddress;
let wrapper;
before(async () => {
  bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  busAddress = await new Promise((resolve, reject) => {
    let out = '';
    bus.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim().split('\n')[0]);
    });
    bus.on('exit', (c) => reject(new Error(`dbus-daemon exited ${c}`)));
  });
  wrapper = path.join(WORK, 'app-on-bus.sh');
  fs.writeFileSync(wrapper, `#!/bin/sh\nDBUS_SESSION_BUS_ADDRESS='${busAddress}' exec '${APP}' "$@"\n`, { mode: 0o755 });
});
after(() => {
  bus?.kill();
  // Later suites start with the default window size.
  fs.rmSync(STATE, { force: true });
});

async function start(store, application = APP) {
  return remote({
    hostname: '127.0.0.1',
    port: Number(process.env.E2E_DRIVER_PORT ?? 4444),
    logLevel: 'warn',
    capabilities: { 'tauri:options': { application, args: store ? [store] : [] } },
  });
}

/** Titles of the app's top-level X windows (xwininfo, from x11-utils). */
function windowTitles() {
  const out = execFileSync('xwininfo', ['-root', '-tree'], { encoding: 'utf8' });
  return [...out.matchAll(/"([^"]*— TwainMQ Desktop|TwainMQ Desktop)"/g)].map((m) => m[1]);
}

/** A chord: webdriverio presses the keys in order and releases them all at the end. */
async function pressKeys(browser, keys) {
  await browser.keys(keys);
}

test('the menu items run through their accelerators; ? lists them; settings change the app', async () => {
  const store = fixtureStore('desktop-menus');
  const browser = await start(store);
  try {
    await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
    await browser.execute(() => document.documentElement.setAttribute('data-theme', 'dark'));
    await (await byId(browser, 'topic-item-events')).click();
    await (await byId(browser, 'jump-time-input')).waitForDisplayed();
    // Go → Jump to Time (Ctrl+Shift+G) puts the cursor in the time field.
    await pressKeys(browser, ['Control', 'Shift', 'G']);
    await until(browser, () => browser.execute(() => document.activeElement?.getAttribute('data-testid') === 'jump-time-input'), 'time field focused');
    await browser.execute(() => document.activeElement?.blur());
    // View → UTC / Local Time (Ctrl+Shift+U) switches the table's times.
    const zoneBefore = await browser.execute(() => localStorage.getItem('twainmq.tz'));
    await pressKeys(browser, ['Control', 'Shift', 'U']);
    await until(browser, async () => (await browser.execute(() => localStorage.getItem('twainmq.tz'))) !== zoneBefore, 'time zone switched');
    await pressKeys(browser, ['Control', 'Shift', 'U']);

    // ? (not in a text field) opens the shortcuts overlay: the menu's accelerators and the table's keys.
    await browser.keys(['?']);
    const overlay = await byId(browser, 'shortcuts-overlay');
    await overlay.waitForDisplayed();
    const text = await overlay.getText();
    assert.match(text, /Ctrl\+Shift\+G/);
    assert.match(text, /Jump to a time/);
    assert.match(text, /Search \(text/);
    await shot(browser, 'desktop-shortcuts-dark');
    await browser.keys(['Escape']);
    await overlay.waitForDisplayed({ reverse: true });

    // File → Settings (Ctrl+,): the theme chosen there applies at once and is kept.
    await pressKeys(browser, ['Control', ',']);
    const settings = await byId(browser, 'settings-dialog');
    await settings.waitForDisplayed();
    await until(browser, async () => /store/.test(await (await byId(browser, 'settings-cache-size')).getText()), 'cache size');
    await shot(browser, 'desktop-settings-dark');
    await (await browser.$('[data-testid="settings-theme-light"]')).click();
    await until(browser, () => browser.execute(() => document.documentElement.dataset.theme === 'light'), 'light theme');
    assert.equal(await browser.execute(() => localStorage.getItem('twainmq.theme')), 'light');
    await shot(browser, 'desktop-settings-light');
    await browser.keys(['Escape']);
    await browser.keys(['?']);
    await (await byId(browser, 'shortcuts-overlay')).waitForDisplayed();
    await shot(browser, 'desktop-shortcuts-light');
    await browser.keys(['Escape']);
    await (await browser.$('[data-testid="shortcuts-overlay"]')).waitForDisplayed({ reverse: true });
    await browser.execute(() => localStorage.setItem('twainmq.theme', 'dark'));
  } finally {
    await browser.deleteSession();
  }
});

test('the main window comes back at its size and place; the last store reopens', async () => {
  const store = fixtureStore('desktop-state');
  fs.mkdirSync(CONFIG, { recursive: true });
  // The plugin's own file, as a previous run leaves it.
  const saved = { main: { width: 1040, height: 680, x: 60, y: 40, prev_x: 60, prev_y: 40, maximized: false, visible: true, decorated: true, fullscreen: false } };
  fs.writeFileSync(STATE, JSON.stringify(saved));
  let browser = await start(store);
  try {
    await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
    const rect = await browser.getWindowRect();
    assert.equal(rect.width, 1040, `width came back (${JSON.stringify(rect)})`);
    assert.equal(rect.height, 680, `height came back (${JSON.stringify(rect)})`);
  } finally {
    await browser.deleteSession();
  }
  // Started again with no store named: the last store opened comes back (the default setting).
  browser = await start(null);
  try {
    await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
    const root = await browser.execute(() => document.title);
    assert.match(root, new RegExp(`${path.basename(store)} — TwainMQ Desktop`));
  } finally {
    await browser.deleteSession();
  }
});

test('a second launch opens its store in a new window of the running app', async () => {
  fs.rmSync(STATE, { force: true });
  const first = fixtureStore('desktop-first');
  const second = fixtureStore('desktop-second');
  const browser = await start(first, wrapper);
  try {
    await (await byId(browser, 'topic-list')).waitForDisplayed({ timeout: 20000 });
    const t0 = Date.now();
    // The second launch hands its path to the running app and exits at once.
    const r = spawnSync(APP, [second], { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: busAddress }, timeout: 30000, encoding: 'utf8' });
    assert.equal(r.status, 0, `the second launch exits cleanly (${r.stderr})`);
    assert.ok(Date.now() - t0 < 15000, 'and quickly');
    const want = `${second} — TwainMQ Desktop`;
    await until(browser, () => windowTitles().includes(want), `a window titled ${want}`, 20000);
    assert.ok(windowTitles().includes(`${first} — TwainMQ Desktop`), 'the first window still shows its own store');
    // The first window's store is unchanged: each window has its own.
    assert.match(await browser.execute(() => document.title), new RegExp(`^${first}`));
    // Launching with the first store again opens no third window (that window comes to the front).
    const again = spawnSync(APP, [first], { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: busAddress }, timeout: 30000 });
    assert.equal(again.status, 0);
    await new Promise((res) => setTimeout(res, 1500));
    assert.equal(windowTitles().filter((t) => t.endsWith('— TwainMQ Desktop')).length, 2, `two windows (${windowTitles().join(', ')})`);
  } finally {
    await browser.deleteSession();
  }
});
