// Every consumer group of a store in one table (the store's counterpart of a cluster's groups
// tab): sorted by any column (lag compared exactly, as u64), filtered by group or topic name.

import type { GroupSummary } from '../backend';

export type GroupsSort = 'name' | 'topic' | 'state' | 'members' | 'lag';
export type GroupsOrder = { by: GroupsSort; desc: boolean };

/** The order after a header click: the same column turns round; a new one starts largest first for figures. */
export function nextGroupsOrder(o: GroupsOrder, by: GroupsSort): GroupsOrder {
  return o.by === by ? { by, desc: !o.desc } : { by, desc: by === 'members' || by === 'lag' };
}

/** The state in words. */
export function phaseWords(s: GroupSummary['state']): string {
  switch (s) {
    case 'stable':
      return 'stable';
    case 'rebalancing':
      return 'rebalancing';
    case 'stuck':
      return 'stuck in a round';
    case 'empty':
      return 'no live member';
    default:
      return 'log unreadable';
  }
}

/** The groups shown: those whose name or topic holds `filter` (any case), in `order`, ties by name. */
export function groupsOverviewRows(groups: readonly GroupSummary[], order: GroupsOrder, filter: string): GroupSummary[] {
  const needle = filter.trim().toLowerCase();
  const byName = (a: GroupSummary, b: GroupSummary) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const cmp = (a: GroupSummary, b: GroupSummary): number => {
    switch (order.by) {
      case 'name':
        return byName(a, b);
      case 'topic':
        return (a.topic ?? '').localeCompare(b.topic ?? '');
      case 'state':
        return a.state.localeCompare(b.state);
      case 'members':
        return a.live_members - b.live_members || a.members - b.members;
      case 'lag': {
        const x = BigInt(a.lag);
        const y = BigInt(b.lag);
        return x < y ? -1 : x > y ? 1 : 0;
      }
    }
  };
  return groups
    .filter((g) => needle === '' || g.name.toLowerCase().includes(needle) || (g.topic ?? '').toLowerCase().includes(needle))
    .sort((a, b) => {
      const c = cmp(a, b);
      if (c !== 0) return order.desc ? -c : c;
      return byName(a, b);
    });
}
