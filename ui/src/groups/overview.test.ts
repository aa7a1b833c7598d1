import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { GroupSummary } from '../backend';
import App from '../app/App.svelte';
import { app } from '../app/app.svelte';
import { mock, until } from '../../tests/helpers';
import { groupsOverviewRows, nextGroupsOrder } from './overview';

vi.mock('../backend', async () => (await import('../backend/mock')).mockModule());

beforeEach(() => {
  mock().forgetListeners();
  mock().seed();
  mock().open = true;
  mock().watching = true;
  app.info = null;
  app.topic = null;
  app.group = null;
});
afterEach(() => {
  cleanup();
  mock().seed();
});

const g = (name: string, lag: string, more: Partial<GroupSummary> = {}): GroupSummary => ({ name, topic: 'orders', members: 2, live_members: 1, state: 'stable', lag, ...more });

describe("a store's consumer groups overview", () => {
  it('sorts lag exactly, ties by name, and filters by group or topic', () => {
    const groups = [g('b', '9007199254740993'), g('a', '9007199254740992'), g('c', '9007199254740993', { topic: 'audit' }), g('old', '0', { topic: null })];
    expect(groupsOverviewRows(groups, { by: 'lag', desc: true }, '').map((x) => x.name)).toEqual(['b', 'c', 'a', 'old']);
    expect(groupsOverviewRows(groups, { by: 'lag', desc: true }, 'AUD').map((x) => x.name)).toEqual(['c']);
    expect(nextGroupsOrder({ by: 'lag', desc: true }, 'lag')).toEqual({ by: 'lag', desc: false });
    expect(nextGroupsOrder({ by: 'lag', desc: true }, 'name')).toEqual({ by: 'name', desc: false });
    expect(nextGroupsOrder({ by: 'name', desc: false }, 'members')).toEqual({ by: 'members', desc: true });
  });

  it('lists every group of the store beside its topics, and a row opens its group', async () => {
    render(App);
    await until(() => document.querySelector('[data-testid="overview-view-groups"]') !== null, 'the overview');
    const button = document.querySelector<HTMLButtonElement>('[data-testid="overview-view-groups"]')!;
    const count = Number(/\((\d+)\)/.exec(button.textContent ?? '')![1]);
    expect(count).toBe(app.info!.groups.length);
    await fireEvent.click(button);
    const rows = [...document.querySelectorAll('[data-testid="groups-overview-row"]')];
    expect(rows.length).toBe(count);
    expect(count).toBeGreaterThan(0);
    const first = app.info!.groups.reduce((m, x) => (BigInt(x.lag) > BigInt(m.lag) || (x.lag === m.lag && x.name < m.name) ? x : m));
    expect(rows[0].textContent).toContain(first.name);
    await fireEvent.click(document.querySelector(`[data-testid="groups-overview-open-${first.name}"]`)!);
    expect(app.group).toBe(first.name);
  });
});
