// The store's health where the user looks: files cut short, names Windows cannot hold,
// and what `twainmq check` finds, from the sidebar.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent } from '@testing-library/svelte';
import { freshLaunch, mock, openDemo, until } from '../../tests/helpers';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(freshLaunch);
afterEach(() => cleanup());

const byId = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const text = (id: string) => byId(id)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

describe('store health', () => {
  it('counts files cut short and names Windows cannot hold, and lists what check finds by kind', async () => {
    mock().shrunk = [{ topic: 'events', partition: 1, file: '1-2026-11-30_0.tmf', lines_before: '5525', lines_after: '2784' }];
    mock().nameProblems = [
      { topic: 'con', partition: null, file: null, line: null, offset: null, kind: 'windows_name', message: 'topic "con": CON is a device name on Windows; so this store cannot be used on Windows as it is' },
    ];
    await openDemo();
    expect(text('store-health')).toBe('⚠ 2 store problems');
    await fireEvent.click(byId('store-health')!);
    expect(text('health-shrunk')).toContain('events · P1 · 1-2026-11-30_0.tmf: held 5,525 messages, now 2,784: the 2,741 at its end are gone');
    expect(text('health-names')).toContain('CON is a device name on Windows');
    await fireEvent.click(byId('health-run-check')!);
    await until(() => !!byId('health-check-summary'), 'the check');
    const kinds = [...document.querySelectorAll<HTMLElement>('[data-testid=health-kind]')].map((e) => e.dataset.kind);
    expect(kinds).toContain('damaged_line');
    expect(kinds).toContain('unfinished_line');
    expect(text('health-check-summary')).toBe('twainmq check found 4 problems:');
  });

  it('offers the check even when the summary finds nothing', async () => {
    await openDemo();
    expect(text('store-health')).toBe('Check store…');
  });
});
