// A big group's page: its offsets table sorted and filtered to the partitions with lag,
// its assignment map folded to a line per member; members' kinds; a round churn's diagnosis.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import GroupOffsets from './GroupOffsets.svelte';
import GroupMap from './GroupMap.svelte';
import RoundBanner from './RoundBanner.svelte';
import type { GroupDetail, PartitionProgressDto, RoundDto } from '../backend';

afterEach(() => cleanup());

const NOW = 1_800_000_000;

/** 1,000 partitions of 3 members; every 97th lags, by more the higher it is, and waited since `NOW - p`. */
function bigGroup(): PartitionProgressDto[] {
  return Array.from({ length: 1000 }, (_, p) => {
    const lag = p % 97 === 5 ? String(p * 10) : '0';
    return { partition: p, committed: '100', end: String(100 + Number(lag)), lag, oldest_unconsumed_at: lag === '0' ? null : NOW - p, past_end: null, owner: p < 990 ? (p % 3) + 1 : null };
  });
}

function detailOf(partitions: PartitionProgressDto[]): GroupDetail {
  return {
    name: 'big',
    topic: 't',
    topic_candidates: [],
    state: 'stable',
    state_reason: '',
    live_members: 3,
    members: [1, 2, 3].map((id) => ({ id, partitions: partitions.filter((p) => p.owner === id).map((p) => p.partition), joined_at: NOW - 60, last_seen_at: NOW, status: 'live', status_reason: '', follows_resets: false, client: 'twainmq 0.2.3' })),
    former_members: [],
    partitions,
    open_round: null,
    round_churn: null,
    rounds: [],
    records: '10',
    last_record_at: NOW,
    now: NOW,
  };
}

const shown = (c: HTMLElement) => [...c.querySelectorAll<HTMLElement>('[data-testid=group-offsets-row]')].map((r) => Number(r.dataset.partition));

describe("a big group's page", () => {
  it('sorts the offsets table by lag or lag age and filters it to the partitions with lag', async () => {
    const { container, getByTestId } = render(GroupOffsets, { props: { partitions: bigGroup(), now: NOW, tz: 'utc' } });
    expect(shown(container).slice(0, 3)).toEqual([0, 1, 2]);
    const lagging = bigGroup().filter((p) => p.lag !== '0').map((p) => p.partition);
    expect(lagging).toHaveLength(11);
    await fireEvent.click(getByTestId('group-offsets-lagging'));
    expect(shown(container)).toEqual(lagging);
    expect(container.textContent).toContain('only lagging (11 of 1,000)');
    await fireEvent.click(getByTestId('group-offsets-sort-lag'));
    expect(shown(container)).toEqual([...lagging].reverse());
    await fireEvent.click(getByTestId('group-offsets-sort-age'));
    expect(shown(container)).toEqual([...lagging].reverse()); // the oldest waiting message first
    await fireEvent.click(getByTestId('group-offsets-lagging'));
    const all = shown(container);
    expect(all).toHaveLength(1000);
    expect(all.slice(0, 11)).toEqual([...lagging].reverse());
    // Owners ascending, the partitions held by nobody last.
    await fireEvent.click(getByTestId('group-offsets-sort-owner'));
    expect(shown(container).slice(-10)).toEqual(Array.from({ length: 10 }, (_, i) => 990 + i));
  }, 60_000); // a thousand rows re-rendered in jsdom, on a busy machine

  it('says so when no partition lags', async () => {
    const parts = bigGroup().map((p) => ({ ...p, lag: '0', oldest_unconsumed_at: null }));
    const { getByTestId } = render(GroupOffsets, { props: { partitions: parts, now: NOW, tz: 'utc' } });
    await fireEvent.click(getByTestId('group-offsets-lagging'));
    expect(getByTestId('group-offsets-none').textContent).toContain('No partition lags');
  }, 60_000);

  it('folds the map of 1,000 partitions to a line per member, the cells on request', async () => {
    const { container, getByTestId, queryByTestId } = render(GroupMap, { props: { detail: detailOf(bigGroup()), kinds: new Map() } });
    expect(queryByTestId('group-map')).toBeNull();
    const lines = [...container.querySelectorAll<HTMLElement>('[data-testid=group-holding]')].map((h) => h.textContent?.replace(/\s+/g, ' ').trim());
    expect(lines).toEqual(['m1 330 partitions lag 21.5 k', 'm2 330 partitions lag 14.7 k', 'm3 330 partitions lag 17.6 k', 'held by nobody 10 partitions caught up']);
    await fireEvent.click(getByTestId('group-map-toggle'));
    expect(container.querySelectorAll('[data-testid=group-map-cell]')).toHaveLength(1000);
  });

  it('keeps the map of a small group as it was', () => {
    const { container, queryByTestId } = render(GroupMap, { props: { detail: detailOf(bigGroup().slice(0, 12)), kinds: new Map() } });
    expect(queryByTestId('group-holdings')).toBeNull();
    expect(container.querySelectorAll('[data-testid=group-map-cell]')).toHaveLength(12);
  });
});

describe('a round banner', () => {
  const round: RoundDto = { begin_offset: '40', started_by: 16, started_at: NOW - 5, ends_at: NOW + 55, offers: [], ended_at: null, ended_by: null, superseded: false, assignment: {}, confirms: {} };

  it('gives the diagnosis of rounds opened faster than their window, not a countdown', () => {
    const churn = 'no round can end: 15 rounds in a row were replaced by a new one before their 60 s window ran out';
    const { getByTestId } = render(RoundBanner, { props: { round, state: 'rebalancing', remaining: 55, churn } });
    expect(getByTestId('round-banner').textContent).not.toContain('ends in');
    expect(getByTestId('round-churn').textContent).toContain('rounds churn: no round can end: 15 rounds');
  });

  it('counts a round down otherwise', () => {
    const { getByTestId } = render(RoundBanner, { props: { round, state: 'rebalancing', remaining: 55 } });
    expect(getByTestId('round-banner').textContent).toContain('rebalancing: ends in 55.0 s');
  });
});
