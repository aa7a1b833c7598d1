// Opening a store never deletes (retention is asked about first, per store), and a store
// whose folder goes while open is shown as gone, not as a live store with old totals.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent } from '@testing-library/svelte';
import { app } from './app.svelte';
import { freshLaunch, mock, openDemo, recording, until } from '../../tests/helpers';
import type { RetentionPlanDto } from '../backend';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => {
  cleanup();
  app.presence = null;
  app.retentionDue = [];
  app.retentionNotice = null;
});

const byId = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const text = (id: string) => byId(id)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

/** What the engine planned for events under a 1-day retention (a preview: nothing deleted). */
function duePlan(): RetentionPlanDto {
  const rec = recording.transfer.previews.find((p) => p.topic === 'events' && p.retention?.days === '1' && !p.force);
  if (rec?.answer.status !== 'ok') throw new Error('no recorded plan');
  return rec.answer.data;
}

describe('retention in a store set to ask', () => {
  it('asks before deleting, deletes nothing on "Not now", and deletes only on yes', async () => {
    await openDemo();
    mock().emitRetentionDue([duePlan()]);
    await until(() => !!byId('retention-due'), 'the question');
    expect(text('retention-due')).toMatch(/2 old files \(45 messages\) would be deleted\. Nothing has been deleted\./);
    expect(text('retention-due-plans')).toContain('events: 2 files, 45 messages');
    await fireEvent.click(byId('retention-due-later')!);
    await until(() => !byId('retention-due'), 'the question closed');
    expect(mock().calls.some((c) => c[0] === 'applyRetention'), 'nothing deleted on "Not now"').toBe(false);

    mock().retentionSaved.set('events', { days: '1', bytes_per_partition: null });
    mock().emitRetentionDue([duePlan()]);
    await until(() => !!byId('retention-due'), 'asked again');
    await fireEvent.click(byId('retention-due-delete')!);
    await until(() => !byId('retention-due'), 'done');
    expect(mock().calls.filter((c) => c[0] === 'applyRetention')).toEqual([['applyRetention', 'events', false]]);
    expect(app.status).toMatch(/Retention removed 2 old files \(45 messages\) from events.*Deleted by the app/);
  });

  it('keeps the store\'s setting: "never" or "automatically" from the question itself', async () => {
    await openDemo();
    mock().emitRetentionDue([duePlan()]);
    await until(() => !!byId('retention-due-mode'), 'the setting in the question');
    expect((byId('retention-due-mode') as HTMLSelectElement).value).toBe('ask');
    await fireEvent.change(byId('retention-due-mode')!, { target: { value: 'never' } });
    await until(() => !byId('retention-due'), 'no more question');
    expect(mock().calls.filter((c) => c[0] === 'setRetentionMode')).toEqual([['setRetentionMode', 'never']]);
    expect(mock().calls.some((c) => c[0] === 'applyRetention')).toBe(false);
  });

  it('says what automatic retention removed and where to see it', async () => {
    await openDemo();
    mock().emitRetentionApplied({ plans: [{ ...duePlan(), applied: true }] });
    await until(() => !!byId('retention-notice'), 'the notice');
    expect(text('retention-notice')).toMatch(/Retention removed 2 old files \(45 messages\) from events.*automatically.*Retention tab, under "Deleted by the app"/);
  });
});

describe('a store folder that goes while open', () => {
  it('stops showing the store (no live, no totals), offers to close, and comes back by itself', async () => {
    await openDemo();
    expect(byId('live-indicator')!.dataset.live).toBe('true');
    const root = app.info!.root;
    mock().emitPresence({ root, state: 'gone', message: `The store's folder ${root} is gone: deleted, renamed or moved. Waiting for it to come back, or close it.`, since: 0 });
    await until(() => !!byId('store-gone'), 'the store said gone');
    expect(byId('topic-list'), 'no stale topics').toBeNull();
    expect(byId('live-indicator')!.dataset.live).toBe('false');
    expect(text('live-indicator')).toBe('store gone');
    expect(text('status-totals')).toBe('store gone: nothing of it shown');
    expect(text('store-gone-message')).toContain('deleted, renamed or moved');
    expect(text('store-gone-waiting')).toContain('Waiting for it to come back');

    mock().emitPresence({ root, state: 'present', message: `The store's folder ${root} is back: opened again`, since: 0 });
    await until(() => !!byId('topic-list'), 'the store back');
    expect(byId('store-gone')).toBeNull();
    expect(byId('live-indicator')!.dataset.live).toBe('true');
  });

  it('closes a store that is gone', async () => {
    await openDemo();
    mock().emitPresence({ root: app.info!.root, state: 'unreachable', message: 'cannot be reached (Transport endpoint is not connected)', since: 0 });
    await until(() => !!byId('store-gone'), 'unreachable');
    expect(text('live-indicator')).toBe('unreachable');
    await fireEvent.click(byId('store-gone-close')!);
    await until(() => !!byId('welcome'), 'the welcome screen');
  });

  it('a refresh refused as store_gone shows the store as gone', async () => {
    await openDemo();
    mock().presence = { root: app.info!.root, state: 'gone', message: 'gone', since: 0 };
    void app.refresh();
    await until(() => !!byId('store-gone'), 'gone after a refused refresh');
    expect(app.status, 'no "could not refresh" error beside it').not.toMatch(/Could not refresh/);
  });
});
