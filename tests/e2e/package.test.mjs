// The installed .deb (scripts/package-test.sh installs it, runs this file, removes it): the
// app is started the way "Open With TwainMQ Desktop" on a folder starts it, from the desktop
// entry's Exec line, and must show the store's topics; the packaged `twainmq` must be the same
// version. Outside that script (a plain `scripts/e2e.sh`) there is no package: skipped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { remote } from 'webdriverio';
import { APP, CLI, fixtureStore, byId, shot } from './harness.mjs';

const installed = process.env.TWAINMQ_PACKAGE === '1';
const skip = installed ? false : 'needs the installed package: run by scripts/package-test.sh (make package-test)';
const ENTRY = '/usr/share/applications/twainmq-desktop.desktop';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** The workspace version, which every binary and the package carry. */
function workspaceVersion() {
  const manifest = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  const m = manifest.split('[workspace.package]')[1]?.match(/^version\s*=\s*"([^"]+)"/m);
  assert.ok(m, 'a version in [workspace.package]');
  return m[1];
}

/** The [Desktop Entry] group's keys. */
function desktopEntry() {
  const entry = {};
  let group = '';
  for (const line of fs.readFileSync(ENTRY, 'utf8').split('\n')) {
    if (/^\s*(#|$)/.test(line)) continue;
    const g = line.match(/^\[(.+)\]$/);
    if (g) group = g[1];
    else if (group === 'Desktop Entry') {
      const i = line.indexOf('=');
      entry[line.slice(0, i)] = line.slice(i + 1);
    }
  }
  return entry;
}

let browser;

before(async () => {
  if (!installed) return;
  assert.equal(APP, '/usr/bin/twainmq-desktop', 'the installed app, not a build in target/');
  assert.equal(CLI, '/usr/bin/twainmq', 'the installed command, not a build in target/');
});

after(async () => {
  await browser?.deleteSession();
});

test('the packaged app and command carry the same version, the engine and the 0.2.3 compatibility', { skip }, () => {
  const v = workspaceVersion();
  const app = execFileSync(APP, ['--version'], { encoding: 'utf8' }).trim();
  const cliLine = execFileSync(CLI, ['--version'], { encoding: 'utf8' }).trim();
  assert.equal(app, `twainmq-desktop ${v} (engine ${v}, reads and writes twainmq 0.2.3 stores)`);
  assert.equal(cliLine, `twainmq ${v} (engine ${v}, reads and writes twainmq 0.2.3 stores)`);
  const status = execFileSync('dpkg-query', ['-W', '-f=${Status} ${Version}', 'twainmq-desktop'], { encoding: 'utf8' });
  assert.equal(status, `install ok installed ${v}`);
});

test('the desktop entry offers the app for folders, with an icon of every size', { skip }, () => {
  const e = desktopEntry();
  assert.equal(e.Name, 'TwainMQ Desktop');
  assert.equal(e.Type, 'Application');
  assert.equal(e.Exec, 'twainmq-desktop %f');
  assert.deepEqual(e.MimeType.split(';').filter(Boolean), ['inode/directory']);
  for (const size of [16, 24, 32, 48, 64, 96, 128, 256, 512]) {
    const icon = `/usr/share/icons/hicolor/${size}x${size}/apps/${e.Icon}.png`;
    assert.ok(fs.existsSync(icon), `${icon} installed`);
    const png = fs.readFileSync(icon);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [size, size], `${icon} is ${size} px`);
  }
  // GLib (the file managers' "Open With") lists the app among the folder handlers.
  const mime = execFileSync('gio', ['mime', 'inode/directory'], { encoding: 'utf8' });
  assert.match(mime, /^\s+twainmq-desktop\.desktop$/m, mime);
});

test('opening a folder with the installed app shows its topics; the packaged CLI reads the same store', { skip }, async () => {
  const store = fixtureStore('package');
  // What a file manager runs for "Open With TwainMQ Desktop": Exec, %f replaced by the folder.
  const [program, ...args] = desktopEntry().Exec.split(' ').map((a) => (a === '%f' ? store : a));
  assert.equal(execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim(), APP, 'Exec finds the installed app on PATH');
  browser = await remote({
    hostname: '127.0.0.1',
    port: Number(process.env.E2E_DRIVER_PORT ?? 4444),
    logLevel: 'warn',
    capabilities: { 'tauri:options': { application: APP, args } },
  });
  const list = await byId(browser, 'topic-list');
  await list.waitForDisplayed({ timeout: 15000 });
  const topics = ['bigmsgs', 'empty', 'events', 'names', 'sensors', 'tiny', 'typed'];
  for (const t of topics) {
    assert.ok(await byId(browser, `topic-item-${t}`).isExisting(), `topic ${t} listed`);
  }
  assert.match(await browser.getTitle(), /package/);
  // The About dialog's command answers in the packaged app (its capability is granted).
  const about = await browser.executeAsync((done) => {
    window.__TAURI_INTERNALS__.invoke('about').then(done, (e) => done({ error: String(e) }));
  });
  const v = workspaceVersion();
  assert.deepEqual(about, { app_version: v, engine_version: v, compat: '0.2.3' });
  await shot(browser, 'package-topics');

  const listed = JSON.parse(execFileSync(CLI, ['--store', store, 'topics', 'list', '--json'], { encoding: 'utf8' }));
  const names = listed.map((t) => t.name).sort();
  assert.deepEqual(names, topics);
});
