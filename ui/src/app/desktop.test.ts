import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from './App.svelte';
import { app } from './app.svelte';
import { prefs } from './prefs.svelte';
import { accelLabel, accelMatches, actionForKey, actions, shortcutGroups } from './actions.svelte';
import { MENU_ACCELERATORS } from '../backend/limits';
import { freshLaunch, mock, openDemo, recording, until } from '../../tests/helpers';
import { typeAhead } from '../store/sidebar';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

const key = (k: string, mods: Partial<KeyboardEvent> = {}) =>
  ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods }) as KeyboardEvent;

beforeEach(() => {
  freshLaunch();
  actions.overlay = null;
  prefs.setTheme('dark');
});
afterEach(() => cleanup());

describe('accelerators', () => {
  it('match exactly their modifiers, Cmd on macOS and Ctrl elsewhere', () => {
    expect(accelMatches('CmdOrCtrl+O', key('o', { ctrlKey: true }), false)).toBe(true);
    expect(accelMatches('CmdOrCtrl+O', key('o', { metaKey: true }), false)).toBe(false);
    expect(accelMatches('CmdOrCtrl+O', key('o', { metaKey: true }), true)).toBe(true);
    expect(accelMatches('CmdOrCtrl+O', key('o', { ctrlKey: true, shiftKey: true }), false)).toBe(false);
    expect(accelMatches('CmdOrCtrl+Shift+G', key('G', { ctrlKey: true, shiftKey: true }), false)).toBe(true);
    expect(accelMatches('CmdOrCtrl+Shift+G', key('g', { ctrlKey: true }), false)).toBe(false);
    expect(accelMatches('F1', key('F1'), false)).toBe(true);
    expect(accelMatches('CmdOrCtrl+Comma', key(',', { ctrlKey: true }), false)).toBe(true);
  });

  it('name the menu item of a key press, and no bare key is one', () => {
    expect(actionForKey(key('g', { ctrlKey: true }), false)).toBe('jump-offset');
    expect(actionForKey(key('G', { ctrlKey: true, shiftKey: true }), false)).toBe('jump-time');
    expect(actionForKey(key('f', { ctrlKey: true }), false)).toBe('find');
    // The Messages tab's own keys stay its own.
    for (const k of ['/', 'g', 'f', 'j', 'k', '?']) expect(actionForKey(key(k), false)).toBeNull();
  });

  it('are written as the platform writes them, and every one is in the shortcuts list', () => {
    expect(accelLabel('CmdOrCtrl+Shift+G', false)).toBe('Ctrl+Shift+G');
    expect(accelLabel('CmdOrCtrl+Shift+G', true)).toBe('⌘⇧G');
    const listed = shortcutGroups(false).flatMap((g) => g.keys.map((k) => k.keys));
    for (const a of Object.values(MENU_ACCELERATORS)) expect(listed).toContain(accelLabel(a, false));
  });
});

describe('the keyboard and the menu bar', () => {
  it('? opens the shortcuts overlay, but not while typing; Esc closes it', async () => {
    const r = await openDemo();
    const input = document.createElement('input');
    document.body.append(input);
    await fireEvent.keyDown(input, { key: '?' });
    expect(r.queryByTestId('shortcuts-overlay')).toBeNull();
    input.remove();
    await fireEvent.keyDown(window, { key: '?' });
    await until(() => !!r.queryByTestId('shortcuts-overlay'), 'overlay');
    expect(r.getByTestId('shortcuts-overlay').textContent).toMatch(/Ctrl\+Shift\+G.*Jump to a time/s);
    await fireEvent.keyDown(window, { key: 'Escape' });
    await until(() => !r.queryByTestId('shortcuts-overlay'), 'overlay closed');
  });

  it('runs a menu item sent by the native menu as its accelerator does', async () => {
    const r = await openDemo();
    await until(() => mock().listeningForMenu, 'menu listener');
    mock().menu({ id: 'theme', path: null });
    expect(prefs.theme).toBe('light');
    await fireEvent.keyDown(window, { key: 'T', ctrlKey: true, shiftKey: true });
    expect(prefs.theme).toBe('system');
    mock().menu({ id: 'settings', path: null });
    await until(() => !!r.queryByTestId('settings-dialog'), 'settings');
    mock().menu({ id: 'new-topic', path: null });
    await until(() => app.dialog === 'create', 'create dialog');
  });

  it('Help → About names the app, the engine and the 0.2.3 compatibility', async () => {
    const r = await openDemo();
    await until(() => mock().listeningForMenu, 'menu listener');
    mock().menu({ id: 'about', path: null });
    await until(() => !!r.queryByTestId('about-app-version'), 'about');
    expect(r.getByTestId('about-app-version').textContent).toBe(recording.versions.app_version);
    expect(r.getByTestId('about-compat').textContent).toMatch(/0\.2\.3/);
  });

  it('says what is missing when a topic action has no topic on screen', async () => {
    await openDemo();
    await until(() => mock().listeningForMenu, 'menu listener');
    mock().menu({ id: 'jump-time', path: null });
    await until(() => /Jump to time: open a topic/.test(document.body.textContent ?? ''), 'status');
  });

  it('File → Export and Import open the dialogs of the topic on screen', async () => {
    const r = await openDemo();
    await until(() => mock().listeningForMenu, 'menu listener');
    mock().menu({ id: 'export', path: null });
    await until(() => /Export: open a topic/.test(document.body.textContent ?? ''), 'no topic yet');
    await fireEvent.click(r.getByTestId('topic-item-orders'));
    await until(() => !!r.queryByTestId('export-open'), 'messages tab');
    mock().menu({ id: 'export', path: null });
    await until(() => !!r.queryByTestId('export-dialog'), 'export dialog');
    await fireEvent.keyDown(window, { key: 'Escape' });
    await until(() => !r.queryByTestId('export-dialog'), 'closed');
    await fireEvent.keyDown(window, { key: 'i', ctrlKey: true });
    await until(() => !!r.queryByTestId('import-dialog'), 'import dialog');
  });

  it('Open Recent opens the store it names', async () => {
    render(App);
    await until(() => mock().listeningForMenu, 'menu listener');
    mock().menu({ id: 'open-recent', path: mock().recent[0] });
    await until(() => app.info?.root === mock().recent[0], 'opened');
  });
});

describe('settings', () => {
  it('change the theme and the launch, and clear the index cache', async () => {
    const r = await openDemo();
    actions.run('settings');
    await until(() => !!r.queryByTestId('settings-dialog'), 'settings');
    await fireEvent.click(r.getByTestId('settings-theme-light'));
    expect(prefs.theme).toBe('light');
    expect(localStorage.getItem('twainmq.theme')).toBe('light');
    await fireEvent.click(r.getByTestId('settings-launch-last'));
    expect(localStorage.getItem('twainmq.launch')).toBe('last');
    await fireEvent.click(r.getByTestId('settings-follow'));
    expect(prefs.defaultFollow).toBe(true);
    prefs.setDefaultFollow(false);
    await until(() => /1 store/.test(r.getByTestId('settings-cache-size').textContent ?? ''), 'cache size');
    await fireEvent.click(r.getByTestId('settings-cache-clear'));
    await until(() => !!r.queryByTestId('settings-cache-cleared'), 'cleared');
    expect(mock().calls.some((c) => c[0] === 'clearIndexCache')).toBe(true);
    expect(r.getByTestId('settings-cache-size').textContent).toMatch(/0 stores/);
  });
});

describe('settings: lag alerts', () => {
  it('lists the groups with thresholds, and removes one', async () => {
    const r = await openDemo();
    const { lagAlerts } = await import('../groups/alerts.svelte');
    lagAlerts.set('billing', { maxLag: '100', maxAgeSecs: null });
    actions.run('settings');
    await until(() => !!r.queryByTestId('settings-alert-billing'), 'billing listed');
    expect(r.getByTestId('settings-alert-billing').textContent).toMatch(/100/);
    await fireEvent.click(r.getByTestId('settings-alert-remove-billing'));
    await until(() => !!r.queryByTestId('settings-alerts-none'), 'none left');
    expect(lagAlerts.thresholds('billing')).toBeNull();
  });
});

describe('launch', () => {
  it('reopens the last store when the setting says so', async () => {
    prefs.setLaunch('last');
    render(App);
    await until(() => !!document.querySelector('[data-testid=topic-list]'), 'the last store');
    expect(app.info?.root).toBe(mock().recent[0]);
  });

  it('shows the welcome screen when the setting says so, or in a window opened empty', async () => {
    render(App);
    await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
    await new Promise((r) => setTimeout(r, 50));
    expect(app.info).toBeNull();
    cleanup();
    prefs.setLaunch('last');
    location.hash = '#fresh';
    try {
      render(App);
      await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
      await new Promise((r) => setTimeout(r, 50));
      expect(app.info).toBeNull();
    } finally {
      location.hash = '';
    }
  });

  it('says why the store given at launch did not open, instead of reopening another', async () => {
    prefs.setLaunch('last');
    mock().launch = { path: '/media/usb/store', error: { code: 'store_not_found', message: 'no folder at /media/usb/store' } };
    const r = render(App);
    await until(() => !!document.querySelector('[data-testid=welcome-error]'), 'error');
    expect(r.getByTestId('welcome-error').textContent).toMatch(/no folder at \/media\/usb\/store/);
    expect(app.info).toBeNull();
  });
});

describe('type-ahead in the topic list', () => {
  const names = ['alpha', 'beta', 'billing', 'bravo', 'orders'];
  it('goes to the first name starting with the letters typed, from the current one on', () => {
    expect(typeAhead(names, 'b', 0)).toBe(1);
    expect(typeAhead(names, 'bi', 1)).toBe(2);
    expect(typeAhead(names, 'br', 0)).toBe(3);
    expect(typeAhead(names, 'o', 4)).toBe(4);
    expect(typeAhead(names, 'z', 0)).toBe(-1);
  });
  it('steps through the names of one letter typed again, round the end', () => {
    expect(typeAhead(names, 'bb', 1)).toBe(2);
    expect(typeAhead(names, 'bbb', 3)).toBe(1);
  });
  it('selects the topic typed in the real list', async () => {
    const r = await openDemo();
    const first = r.getByTestId('topic-list').querySelector<HTMLElement>('[role="option"]');
    first?.focus();
    await fireEvent.keyDown(first!, { key: 'o' });
    await fireEvent.keyDown(document.activeElement ?? first!, { key: 'r' });
    await until(() => app.topic === 'orders', 'orders selected');
  });
});
