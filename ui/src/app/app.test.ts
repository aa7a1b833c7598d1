import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import App from './App.svelte';
import { app } from './app.svelte';
import { freshLaunch, mock, openDemo, recordedTopic, rows, settle, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

// These tests start on the welcome screen (desktop.test.ts tests reopening the last store).
beforeEach(freshLaunch);
afterEach(() => cleanup());

describe('the app', () => {
  it('opens the demo store from the welcome screen and lists topics and groups', async () => {
    const { getByTestId } = await openDemo();
    const list = getByTestId('topic-list');
    expect(list.textContent).toContain('firehose');
    expect(getByTestId('topic-item-firehose').textContent).toMatch(/\b1,500\b/);
    expect(getByTestId('topic-item-orders').textContent).toMatch(/u32 · 5 P/);
    // billing's lag, as the engine summed it.
    expect(getByTestId('group-item-billing').textContent).toMatch(/\b109\b/);
    expect(getByTestId('topic-item-broken').textContent).toMatch(/config unreadable/);
  });

  it('folds the sidebar away and back, and remembers it', async () => {
    const { getByTestId } = await openDemo();
    expect(document.querySelector('nav.sidebar')).not.toBeNull();
    await fireEvent.click(getByTestId('sidebar-toggle'));
    expect(document.querySelector('nav.sidebar')).toBeNull();
    expect(localStorage.getItem('twainmq.sidebar')).toBe('collapsed');
    await fireEvent.click(getByTestId('sidebar-expand'));
    expect(document.querySelector('nav.sidebar')).not.toBeNull();
    expect(localStorage.getItem('twainmq.sidebar')).toBe('shown');
  });

  it('says what to do when a store cannot be opened', async () => {
    const { getAllByTestId, getByTestId, queryByTestId } = render(App);
    await until(() => getAllByTestId('recent-store').length === 5, 'recent stores');
    await fireEvent.click(getAllByTestId('recent-store').find((b) => b.textContent === '/mnt/usb/old-store')!);
    await until(() => !!document.querySelector('[data-testid=welcome-error]'), 'error');
    // The engine's words, and the app's advice for its code (store_not_found).
    expect(getByTestId('welcome-error').textContent).toMatch(/no folder at \/mnt\/usb\/old-store.*pick another folder/s);
    // A missing folder may become a new store, but only on request.
    expect(queryByTestId('create-store-here')).not.toBeNull();
    expect(mock().calls.some((c) => c[0] === 'createStore')).toBe(false);
  });

  it('opens a folder dropped on the window only once it is asked to make it a store', async () => {
    const { getByTestId } = render(App);
    await until(() => !!document.querySelector('[data-testid=welcome]') && mock().listeningForDrops, 'welcome, ready for drops');
    mock().drop(['/data/pipeline']);
    await until(() => !!document.querySelector('[data-testid=welcome-error]'), 'the empty-folder message');
    // An empty folder is not shown as a live, empty store.
    expect(app.info).toBeNull();
    expect(getByTestId('welcome-error').textContent).toMatch(/\/data\/pipeline is an empty folder.*Create a store here/s);
    await fireEvent.click(getByTestId('create-store-here'));
    await until(() => !!document.querySelector('[data-testid=topic-list]'), 'store open');
    expect(app.info?.root).toBe('/data/pipeline');
    expect(mock().calls.filter((c) => c[0] === 'createStore')).toEqual([['createStore', '/data/pipeline']]);
  });

  it('creates a topic (validating the name live, showing backend errors inline)', async () => {
    const { getByTestId, queryByTestId } = await openDemo();
    await fireEvent.click(getByTestId('create-topic'));
    const name = getByTestId('create-topic-name') as HTMLInputElement;
    const submit = getByTestId('create-topic-submit') as HTMLButtonElement;
    await fireEvent.input(name, { target: { value: '--group--x' } });
    expect(getByTestId('create-topic-name-error').textContent).toMatch(/reserved/);
    expect(submit.disabled).toBe(true);
    await fireEvent.input(name, { target: { value: 'metrics' } });
    await fireEvent.change(getByTestId('create-topic-key-type'), { target: { value: 'charN' } });
    await fireEvent.input(getByTestId('create-topic-key-width'), { target: { value: '0' } });
    expect(submit.disabled).toBe(true);
    await fireEvent.input(getByTestId('create-topic-key-width'), { target: { value: '16' } });
    await fireEvent.input(getByTestId('create-topic-partitions'), { target: { value: '3' } });
    expect(submit.disabled).toBe(false);
    // Someone else creates it first: the backend's refusal shows in the dialog.
    await mock().backend().createTopic({ name: 'metrics', key_type: 'u8', partitions: 1, message_types: [], max_message_bytes: null });
    await fireEvent.click(submit);
    await until(() => !!document.querySelector('[data-testid=create-topic-error]'), 'backend error');
    expect(getByTestId('create-topic-error').textContent).toMatch(/already exists/);
    await fireEvent.input(name, { target: { value: 'metrics2' } });
    await fireEvent.click(submit);
    await until(() => !queryByTestId('create-topic-dialog'), 'dialog closed');
    await until(() => !!document.querySelector('[data-testid="topic-item-metrics2"]'), 'new topic listed');
    expect(app.topic).toBe('metrics2');
    expect(mock().calls.find((c) => c[0] === 'createTopic' && (c[1] as { name: string }).name === 'metrics2')?.[1]).toEqual({
      name: 'metrics2',
      key_type: 'char16',
      partitions: 3,
      message_types: [],
      max_message_bytes: null,
    });
  });

  it('still finishes actions while the watcher reports changes nonstop', async () => {
    const { getByTestId, queryByTestId } = await openDemo();
    // A busy folder (or a watcher echoing the app's own reads): an event every 10 ms. The topic is made
    // with the dialog's defaults (u16, 1 partition: 0.2.3's), as recorded.
    const storm = setInterval(() => mock().emitChange({ topics: ['orders'], groups: [], structure: true }), 10);
    try {
      await new Promise((r) => setTimeout(r, 100));
      await fireEvent.click(getByTestId('create-topic'));
      await fireEvent.input(getByTestId('create-topic-name'), { target: { value: 'stormy' } });
      await fireEvent.click(getByTestId('create-topic-submit'));
      await until(() => !queryByTestId('create-topic-dialog') && app.topic === 'stormy', 'the new topic selected', 2000);
    } finally {
      clearInterval(storm);
    }
  });

  it('deletes a topic after its name is typed', async () => {
    const { getByTestId, queryByTestId } = await openDemo();
    const said = vi.spyOn(app, 'say');
    await fireEvent.click(getByTestId('topic-item-orders'));
    await until(() => !!document.querySelector('[data-testid=delete-topic]'), 'topic view');
    await fireEvent.click(getByTestId('delete-topic'));
    expect(getByTestId('delete-summary').textContent).toMatch(/400\s+messages and\s+31\.4 KB in 5 partitions/);
    // The groups that read it go with it, and why.
    await until(() => !!document.querySelector('[data-testid=delete-group-list]'), 'the groups listed');
    expect([...document.querySelectorAll('[data-testid=delete-group]')].map((e) => e.textContent)).toEqual(['billing', 'idle']);
    expect(getByTestId('delete-groups').textContent).toMatch(/These 2 consumer groups read\s+orders\s+and are deleted with it/);
    expect(getByTestId('delete-groups').textContent).toMatch(/committed offsets would otherwise apply to a new topic made under the same name/);
    expect(getByTestId('group-item-billing')).toBeTruthy();
    const submit = getByTestId('delete-confirm-submit') as HTMLButtonElement;
    await fireEvent.input(getByTestId('delete-confirm-input'), { target: { value: 'order' } });
    expect(submit.disabled).toBe(true);
    await fireEvent.input(getByTestId('delete-confirm-input'), { target: { value: 'orders' } });
    expect(submit.disabled).toBe(false);
    await fireEvent.click(submit);
    await until(() => !queryByTestId('topic-item-orders'), 'topic gone');
    expect(mock().calls.filter((c) => c[0] === 'deleteTopic')).toEqual([['deleteTopic', 'orders', 'orders']]);
    // What went is said, and the group list has caught up.
    await until(() => !queryByTestId('group-item-billing') && !queryByTestId('group-item-idle'), 'groups gone from the sidebar');
    expect(getByTestId('group-item-workers')).toBeTruthy();
    await until(() => said.mock.calls.some((c) => c[0] === 'Deleted topic orders and the groups that read it: billing, idle'), 'what went said');
    said.mockRestore();
  });

  it('says when no group reads the topic to delete', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('topic-item-sensors'));
    await until(() => !!document.querySelector('[data-testid=delete-topic]'), 'topic view');
    await fireEvent.click(getByTestId('delete-topic'));
    await until(() => /No consumer group reads sensors/.test(getByTestId('delete-groups').textContent ?? ''), 'no groups said');
  });

  it('shows none of a topic deleted by another process, and the new one when it is made again', async () => {
    const { getByTestId, queryByTestId } = await openDemo();
    const said = vi.spyOn(app, 'say');
    await fireEvent.click(getByTestId('topic-item-chat'));
    await until(() => rows().length > 0, 'rows');
    expect(rows().some((r) => r.textContent!.includes('ship it'))).toBe(true);
    mock().replaceExternally('chat');
    await until(() => !!queryByTestId('topic-deleted'), 'the deleted state');
    expect(getByTestId('topic-deleted').textContent).toMatch(/Topic chat was deleted by another process\. Its messages are gone from disk, so none are shown/);
    expect(rows()).toHaveLength(0);
    expect(queryByTestId('delete-topic')).toBeNull();
    await until(() => said.mock.calls.some((c) => c[0] === 'Topic chat was deleted by another process' && c[1] === true), 'the deletion said');
    said.mockRestore();
    // Made again, with another partition count: the new topic, said so, from a fresh table.
    mock().replaceExternally('chat', true);
    await until(() => !!queryByTestId('topic-remade'), 'the made-again note');
    expect(getByTestId('topic-remade').textContent).toMatch(/Topic chat was deleted and made again by another process \(now 3 partitions\): showing the new one/);
    expect(queryByTestId('topic-deleted')).toBeNull();
    await until(() => rows().length > 0, 'new rows');
    expect(rows().every((r) => r.textContent!.includes('chat again #'))).toBe(true);
    expect(getByTestId('row-range').textContent).toMatch(/of 90 on the timeline$/);
  });

  it('never mixes the rows of a topic deleted and made again at once with the old ones', async () => {
    const { getByTestId, queryByTestId } = await openDemo();
    await fireEvent.click(getByTestId('topic-item-firehose'));
    await until(() => rows().length > 0, 'rows');
    expect(rows()[0].textContent).toMatch(/event #0 level=/);
    // Same name, key type and partition count, fewer messages: only the incarnation tells
    // them apart (the full pages read before would otherwise be shown as the new topic's).
    mock().replaceExternally('firehose', true);
    await until(() => !!queryByTestId('topic-remade'), 'the made-again note');
    expect(getByTestId('topic-remade').textContent).toMatch(/\(now 1 partition\): showing the new one\. The messages shown before are gone\./);
    await until(() => rows().length > 0 && rows().every((r) => r.textContent!.includes('firehose again #')), 'only new rows');
    expect(getByTestId('row-range').textContent).toMatch(/of 40$/);
    await fireEvent.click(getByTestId('topic-remade-ok'));
    expect(queryByTestId('topic-remade')).toBeNull();
  });

  it('follows the tail live: new messages appear and the table scrolls to the end', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('topic-item-chat'));
    await fireEvent.change(await waitFor('partition-filter'), { target: { value: '0' } });
    await until(() => rows().length > 0, 'rows');
    await fireEvent.click(getByTestId('follow-toggle'));
    expect(getByTestId('follow-toggle').getAttribute('aria-pressed')).toBe('true');
    const before = getByTestId('topic-item-chat').textContent;
    const end = recordedTopic('chat').partitions[0].end;
    mock().appendNow('chat', 'ada', { text: 'fresh off the press' }, 0);
    await until(() => rows().some((r) => r.textContent!.includes('fresh off the press')), 'new row shown');
    const last = rows()[rows().length - 1];
    expect(last.textContent).toContain('fresh off the press');
    expect(last.dataset.offset).toBe(end);
    await until(() => getByTestId('topic-item-chat').textContent !== before, 'sidebar count');
    expect(getByTestId('topic-item-chat').textContent).toContain('61');
  });

  it('following a busy tail, goes straight to loaded rows, never to "…" rows', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('topic-item-chat'));
    await fireEvent.change(await waitFor('partition-filter'), { target: { value: '0' } });
    await until(() => rows().length > 0, 'rows');
    await fireEvent.click(getByTestId('follow-toggle'));
    await settle();
    const latency = mock().latency;
    mock().latency = 30;
    let pending = 0;
    const mo = new MutationObserver(() => (pending += document.querySelectorAll('[data-testid=message-row-pending]').length));
    mo.observe(document.body, { childList: true, subtree: true });
    try {
      for (let burst = 0; burst < 3; burst++) {
        for (let i = 0; i < 700; i++) mock().appendNow('chat', 'ada', { text: `busy ${burst}.${i}` }, 0);
        await until(() => rows().some((r) => r.textContent!.includes(`busy ${burst}.699`)), `burst ${burst} shown`);
      }
    } finally {
      mo.disconnect();
      mock().latency = latency;
    }
    expect(pending).toBe(0);
  });

  it('shows an "N new" pill instead when not following', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('topic-item-orders'));
    await until(() => rows().length > 0, 'rows');
    mock().appendNow('orders', '1', { text: 'one' }, 0);
    mock().appendNow('orders', '2', { text: 'two' }, 3);
    await until(() => !!document.querySelector('[data-testid=new-pill]'), 'pill');
    await settle();
    expect(getByTestId('new-pill').textContent).toMatch(/2 new/);
    expect(rows()[0].dataset.offset).toBe('0'); // the view stayed put
  });

  it('closes the store from the toolbar menu, back to the welcome screen', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('store-path'));
    await fireEvent.click(getByTestId('menu-close-store'));
    await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
    expect(mock().calls.some((c) => c[0] === 'closeStore')).toBe(true);
    expect(mock().open).toBe(false);
    expect(app.info).toBeNull();
    expect(document.querySelector('[data-testid=topic-list]')).toBeNull();
    // The store can be opened again.
    await fireEvent.click(getByTestId('open-demo'));
    await until(() => !!document.querySelector('[data-testid=topic-list]'), 'topic list again');
  });

  it('stays closed when a summary read before the close arrives after it', async () => {
    const { getByTestId } = await openDemo();
    let release!: () => void;
    mock().held.set('storeInfo', new Promise<void>((r) => (release = r)));
    mock().calls = [];
    void app.refresh();
    await until(() => mock().calls.some((c) => c[0] === 'storeInfo'), 'a refresh under way');
    await fireEvent.click(getByTestId('store-path'));
    await fireEvent.click(getByTestId('menu-close-store'));
    await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
    mock().held.clear();
    release();
    await settle();
    expect(app.info).toBeNull();
    expect(document.querySelector('[data-testid=welcome]')).not.toBeNull();
  });

  it('stays closed when a summary asked for while the close was under way arrives after it', async () => {
    // The real backend closes the store only once its demo members have stopped (their threads
    // joined, each committing and leaving): their writes meanwhile ask for summaries, which the
    // still-open store answers. One answered after the close brought the store's view back.
    const { getByTestId } = await openDemo();
    let closeAnswered!: () => void;
    let summaryAnswered!: () => void;
    mock().held.set('closeStore', new Promise<void>((r) => (closeAnswered = r)));
    await fireEvent.click(getByTestId('store-path'));
    await fireEvent.click(getByTestId('menu-close-store'));
    await until(() => mock().calls.some((c) => c[0] === 'closeStore'), 'the close under way');
    mock().open = true; // not closed yet: its members are still stopping
    mock().held.set('storeInfo', new Promise<void>((r) => (summaryAnswered = r)));
    mock().calls = [];
    void app.refresh();
    await until(() => mock().calls.some((c) => c[0] === 'storeInfo'), 'a summary asked for during the close');
    await new Promise((r) => setTimeout(r, 20)); // answered (with the open store), held in flight
    mock().open = false;
    closeAnswered();
    await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
    summaryAnswered();
    mock().held.clear();
    await settle();
    expect(app.info).toBeNull();
    expect(document.querySelector('[data-testid=welcome]')).not.toBeNull();
  });

  it('says honestly when the folder is not watched, and refreshes on request', async () => {
    mock().watching = false;
    const { getByTestId } = await openDemo();
    expect(getByTestId('live-indicator').textContent).toMatch(/not live: changes appear on refresh/);
    expect(getByTestId('live-indicator').dataset.live).toBe('false');
    await new Promise((r) => setTimeout(r, 300));
    const before = getByTestId('topic-item-chat').textContent;
    mock().calls = [];
    mock().appendNow('chat', 'ada', { text: 'unseen' }, 0);
    await new Promise((r) => setTimeout(r, 400));
    expect(mock().calls.filter((c) => c[0] === 'storeInfo')).toHaveLength(0);
    expect(getByTestId('topic-item-chat').textContent).toBe(before);
    await fireEvent.click(getByTestId('live-refresh'));
    await until(() => getByTestId('topic-item-chat').textContent !== before, 'the refreshed count');
    expect(getByTestId('topic-item-chat').textContent).toContain('61');
    cleanup();
    mock().watching = true;
    app.info = null;
    const again = await openDemo();
    expect(again.getByTestId('live-indicator').textContent).toMatch(/^\s*live\s*$/);
    expect(again.queryByTestId('live-refresh')).toBeNull();
  });

  it('shows a topic\'s throughput from the counts of successive refreshes', async () => {
    const { getByTestId } = await openDemo();
    await fireEvent.click(getByTestId('topic-item-chat'));
    const rate = await waitFor('topic-rate');
    expect(Number(rate.dataset.rate)).toBe(0);
    for (let i = 0; i < 6; i++) {
      for (let k = 0; k < 5; k++) mock().appendNow('chat', 'ada', { text: `burst ${i}.${k}` }, 0);
      await new Promise((r) => setTimeout(r, 300));
    }
    await until(() => Number(getByTestId('topic-rate').dataset.rate) > 0, 'a rate');
    // 30 messages in about 1.8 s over a 5 s window.
    const r = Number(getByTestId('topic-rate').dataset.rate);
    expect(r).toBeGreaterThan(3);
    expect(r).toBeLessThan(40);
    const values = getByTestId('topic-rate-chart').dataset.values!.split(',').map(Number);
    expect(values).toHaveLength(30);
    expect(Math.round(values.reduce((a, b) => a + b, 0))).toBeGreaterThanOrEqual(20);
  });

  it('toggles and persists the theme and the time zone', async () => {
    const { getByTestId } = await openDemo();
    const theme = getByTestId('theme-toggle');
    const start = theme.dataset.theme;
    await fireEvent.click(theme);
    expect(theme.dataset.theme).not.toBe(start);
    expect(localStorage.getItem('twainmq.theme')).toBe(theme.dataset.theme);
    expect(['dark', 'light']).toContain(document.documentElement.dataset.theme);
    const tz = localStorage.getItem('twainmq.tz') ?? 'utc';
    await fireEvent.click(getByTestId('tz-toggle'));
    expect(localStorage.getItem('twainmq.tz')).toBe(tz === 'utc' ? 'local' : 'utc');
  });
});

async function waitFor(testid: string): Promise<HTMLElement> {
  await until(() => !!document.querySelector(`[data-testid="${testid}"]`), testid);
  return document.querySelector<HTMLElement>(`[data-testid="${testid}"]`)!;
}

describe('keyboard in the app', () => {
  it('Ctrl+O picks a folder and opens it; ↑/↓ in the topic list choose topics', async () => {
    render(App);
    await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
    await fireEvent.keyDown(window, { key: 'o', ctrlKey: true });
    await until(() => !!document.querySelector('[data-testid=topic-list]'), 'store open');
    expect(mock().calls.some((c) => c[0] === 'pickFolder')).toBe(true);
    const first = document.querySelector<HTMLElement>('[data-testid=topic-item-broken]')!;
    first.focus();
    await fireEvent.keyDown(first, { key: 'ArrowDown' });
    expect(app.topic).toBe('chat');
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(app.topic).toBe('empty');
    expect((document.activeElement as HTMLElement).dataset.name).toBe('empty');
  });
});
