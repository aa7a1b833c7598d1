// Changing a cluster's consumer group from its window: a reset of its commits, planned first
// (the table of each partition's commit now and after: nothing is written until Apply), then
// applied exactly as shown; and deleting the group with its name typed again. Kafka allows both
// only while the group has no member: the plan says how many it has, and Apply waits for none.

import { backend } from '../backend';
import type { ClusterResetPlan, ClusterResetTo } from '../backend';
import { prefs } from '../app/prefs.svelte';
import { parseTime } from '../shared/format';
import { clusterGroups } from './clusterGroups.svelte';

export type ResetMode = 'earliest' | 'latest' | 'time' | 'offset' | 'shift';

/** The target a mode and its typed value make, or what is wrong with the value. */
export function resetTarget(mode: ResetMode, value: string, tz: 'utc' | 'local'): ClusterResetTo | string {
  const v = value.trim();
  switch (mode) {
    case 'earliest':
    case 'latest':
      return { mode };
    case 'time': {
      const t = parseTime(v, tz);
      return t === null ? 'Give the time: YYYY-MM-DD hh:mm[:ss[.mmm]], or RFC 3339 with Z or an offset.' : { mode, unix_ms: Math.round(t * 1000) };
    }
    case 'offset':
      return /^\d+$/.test(v) ? { mode, offset: v } : 'Give the offset: a whole number of 0 or more.';
    case 'shift':
      return /^[+-]?\d+$/.test(v) && v.replace(/^[+-]/, '') !== '' ? { mode, by: v.replace(/^\+/, '') } : 'Give how many records to move: -100 goes back 100, 250 forward.';
  }
}

export class GroupAdmin {
  resetOpen = $state(false);
  topics = $state<string[]>([]);
  mode = $state<ResetMode>('earliest');
  value = $state('');
  plan = $state<ClusterResetPlan | null>(null);
  busy = $state(false);
  error = $state<string | null>(null);
  deleteOpen = $state(false);

  /** What is wrong with the form, before anything is asked. */
  problem = $derived.by<string | null>(() => {
    if (this.topics.length === 0) return 'Pick at least one topic.';
    const t = resetTarget(this.mode, this.value, prefs.tz);
    return typeof t === 'string' ? t : null;
  });

  openReset(topics: string[]): void {
    this.topics = [...topics];
    this.mode = 'earliest';
    this.value = '';
    this.plan = null;
    this.error = null;
    this.resetOpen = true;
  }

  /** Any change of the form makes the plan shown stale: it must be made again before Apply. */
  changed(): void {
    this.plan = null;
  }

  async preview(): Promise<void> {
    const group = clusterGroups.picked;
    const to = resetTarget(this.mode, this.value, prefs.tz);
    if (group === null || typeof to === 'string' || this.topics.length === 0) return;
    this.busy = true;
    const r = await backend.clusterResetPlan(group, { topics: this.topics, to });
    this.busy = false;
    if (r.status === 'error') {
      this.error = r.error.message;
      this.plan = null;
      return;
    }
    this.error = null;
    this.plan = r.data;
  }

  /** Apply the plan shown, as shown; the group page shows the commits after. */
  async apply(): Promise<boolean> {
    const plan = this.plan;
    if (plan === null || plan.members > 0) return false;
    this.busy = true;
    const r = await backend.clusterResetApply(plan.group, plan.rows);
    this.busy = false;
    if (r.status === 'error') {
      this.error = r.error.message;
      return false;
    }
    this.resetOpen = false;
    clusterGroups.detail = r.data;
    void clusterGroups.load();
    return true;
  }

  async remove(confirm: string): Promise<string | null> {
    const group = clusterGroups.picked;
    if (group === null) return 'No group is open.';
    const r = await backend.clusterDeleteGroup(group, confirm);
    if (r.status === 'error') return r.error.message;
    this.deleteOpen = false;
    clusterGroups.back();
    await clusterGroups.load();
    return null;
  }
}

export const groupAdmin = new GroupAdmin();
