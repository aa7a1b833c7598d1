// A cluster window's consumer groups: the overview (every group with state, members, topics and
// total lag) and the group picked (its members and partitions). Read when the tab is shown and on
// Refresh, and every few seconds while it stays shown (`ClusterGroups.svelte` drives that).
// Nothing here writes to the cluster.

import { backend } from '../backend';
import type { ClusterGroupDetail, ClusterGroupSummary } from '../backend';
import { groupRows, partitionRows, type GroupOrder, type PartitionOrder } from './groups';
import { LagHistory } from './lagTrend';

export class ClusterGroups {
  groups = $state<ClusterGroupSummary[] | null>(null);
  error = $state<string | null>(null);
  loading = $state(false);
  /** When the overview was last read (ms since the epoch). */
  readAt = $state<number | null>(null);
  filter = $state('');
  showLeases = $state(false);
  order = $state<GroupOrder>({ by: 'lag', desc: true });

  picked = $state<string | null>(null);
  detail = $state<ClusterGroupDetail | null>(null);
  detailError = $state<string | null>(null);
  partOrder = $state<PartitionOrder>({ by: 'lag', desc: true });
  laggingOnly = $state(false);
  /** Each group's lag as this window read it (in memory while the window is open). */
  history = new LagHistory();
  /** Bumped at each reading: what shows the history follows it. */
  readings = $state(0);

  shown = $derived<ClusterGroupSummary[]>(groupRows(this.groups ?? [], this.order, this.filter, this.showLeases));
  leases = $derived<number>((this.groups ?? []).filter((g) => g.mirror_lease).length);
  parts = $derived(partitionRows(this.detail?.partitions ?? [], this.partOrder, this.laggingOnly));

  async load(): Promise<void> {
    if (this.loading) return;
    this.loading = true;
    const r = await backend.clusterGroups();
    this.loading = false;
    if (r.status === 'error') {
      this.error = r.error.message;
      return;
    }
    this.error = null;
    this.groups = r.data;
    this.readAt = Date.now();
    this.history.record(r.data, this.readAt);
    this.readings++;
    if (this.picked !== null) await this.loadDetail();
  }

  async pick(id: string): Promise<void> {
    if (this.picked !== id) {
      this.detail = null;
      this.laggingOnly = false;
    }
    this.picked = id;
    await this.loadDetail();
  }

  back(): void {
    this.picked = null;
    this.detail = null;
    this.detailError = null;
  }

  private async loadDetail(): Promise<void> {
    const id = this.picked;
    if (id === null) return;
    const r = await backend.clusterGroup(id);
    if (this.picked !== id) return; // another group was picked meanwhile
    if (r.status === 'error') {
      this.detailError = r.error.message;
      return;
    }
    this.detailError = null;
    this.detail = r.data;
  }
}

export const clusterGroups = new ClusterGroups();
