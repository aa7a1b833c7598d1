// Shared pieces of the end-to-end tests: a fresh store, the app session, waits, screenshots.
import { remote } from 'webdriverio';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '../..');
export const APP = process.env.TWAINMQ_APP ?? path.join(root, 'target/debug/twainmq-desktop');
export const CLI = process.env.TWAINMQ_BIN ?? path.join(root, 'target/debug/twainmq');
export const ARTIFACTS = process.env.E2E_ARTIFACTS ?? path.join(root, 'artifacts/e2e');
const WORK = process.env.E2E_WORK ?? fs.mkdtempSync('/tmp/twainmq-e2e-');

/** A private copy of the 0.2.3 fixture store (the original is never written). */
export function fixtureStore(name) {
  const dest = path.join(WORK, name);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.cpSync(path.join(root, 'tests/fixtures/twainmq-0.2.3/store'), dest, { recursive: true });
  const expected = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/twainmq-0.2.3/expected.json'), 'utf8'));
  for (const t of Object.keys(expected.topics)) fs.mkdirSync(path.join(dest, t), { recursive: true });
  return dest;
}

/** Run the twainmq CLI (a separate process, like any other writer). */
export function cli(store, ...args) {
  return execFileSync(CLI, ['--store', store, ...args], { encoding: 'utf8' });
}

export async function startApp(store) {
  const browser = await remote({
    hostname: '127.0.0.1',
    port: Number(process.env.E2E_DRIVER_PORT ?? 4444),
    logLevel: 'warn',
    capabilities: { 'tauri:options': { application: APP, args: store ? [store] : [] } },
  });
  return browser;
}

export const byId = (browser, id) => browser.$(`[data-testid="${id}"]`);

/**
 * Wait for `fn` to return a truthy value. On a timeout, `explain` (if given) says
 * what was seen instead, so a failure in CI can be understood from its log alone.
 */
export async function until(browser, fn, what, timeout = 5000, explain = null) {
  let last;
  try {
    await browser.waitUntil(async () => (last = await fn()), { timeout, interval: 50, timeoutMsg: `timed out waiting for ${what}` });
  } catch (e) {
    if (!explain) throw e;
    let seen;
    try {
      seen = await explain();
    } catch (x) {
      seen = `(could not say what was seen: ${x})`;
    }
    throw new Error(`${e.message}; seen instead: ${seen}`);
  }
  return last;
}

export async function shot(browser, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // Two animation frames, so the screenshot shows the DOM as it is now.
  await browser.executeAsync((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
  // Without compositing (the app's default on a machine with no GPU, such as under Xvfb),
  // WebKitGTK takes the screenshot at the page's next paint, and a page at rest never
  // paints: keep one transparent pixel changing until the screenshot is taken.
  await browser.execute(() => {
    const dot = document.createElement('div');
    dot.id = '__shot_nudge';
    dot.style.cssText = 'position:fixed;right:0;bottom:0;width:1px;height:1px;pointer-events:none;z-index:2147483647;opacity:0.01';
    document.body.appendChild(dot);
    let n = 0;
    const step = () => {
      if (!dot.isConnected) return;
      dot.style.background = n++ % 2 ? '#000' : '#fff';
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  try {
    await browser.saveScreenshot(path.join(ARTIFACTS, `${name}.png`));
  } finally {
    await browser.execute(() => document.getElementById('__shot_nudge')?.remove());
  }
}

/**
 * Show the app in `want` ('dark' or 'light') as its toolbar toggle does. Where the toggle cannot
 * be clicked (the welcome screen has no toolbar; a dialog covers it), the theme the app would
 * apply is set as the app sets it.
 */
export async function setTheme(browser, want) {
  const t = await byId(browser, 'theme-toggle');
  const modal = await browser.execute(() => !!document.querySelector('[role="dialog"], [aria-modal="true"]'));
  if (!(await t.isExisting()) || modal) {
    await browser.execute((w) => (document.documentElement.dataset.theme = w), want);
    return;
  }
  for (let i = 0; i < 3 && (await t.getAttribute('data-theme')) !== want; i++) await t.click();
  if ((await t.getAttribute('data-theme')) !== want) throw new Error(`the theme toggle did not reach ${want}`);
}

/** Screenshots in both themes, `name-dark.png` and `name-light.png`; dark again after. */
export async function shotsBothThemes(browser, name) {
  await setTheme(browser, 'dark');
  await shot(browser, `${name}-dark`);
  await setTheme(browser, 'light');
  await shot(browser, `${name}-light`);
  await setTheme(browser, 'dark');
}

/**
 * Every process now: pid, parent, name, resident and anonymous memory (KiB), executable and
 * command line (empty where not readable). Processes that exit meanwhile are left out.
 */
export function readProcs() {
  const out = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = fs.readFileSync(`/proc/${d}/status`, 'utf8');
      const name = /^Name:\s*(.*)$/m.exec(st)?.[1] ?? '';
      const ppid = Number(/^PPid:\s*(\d+)/m.exec(st)?.[1] ?? 0);
      const rssKb = Number(/^VmRSS:\s*(\d+) kB/m.exec(st)?.[1] ?? 0);
      const anonKb = Number(/^RssAnon:\s*(\d+) kB/m.exec(st)?.[1] ?? 0);
      let exe = '';
      try {
        exe = fs.readlinkSync(`/proc/${d}/exe`);
      } catch {
        /* gone, or not ours */
      }
      let cmd = '';
      try {
        cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        /* gone */
      }
      out.set(Number(d), { pid: Number(d), name, ppid, rssKb, anonKb, exe, cmd });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

export async function rows(browser) {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="message-row"]')].map((r) => ({
      partition: r.getAttribute('data-partition'),
      offset: r.getAttribute('data-offset'),
      text: r.textContent ?? '',
    })),
  );
}

export async function setValue(el, value) {
  await el.waitForDisplayed();
  await el.clearValue();
  await el.setValue(value);
}
