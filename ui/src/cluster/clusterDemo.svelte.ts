// The balancing demo on a cluster's group, as its panel follows it: members this window starts
// in a group (each a consumer reading a topic slowly and committing), read every second while
// any runs, with the partitions the group gave each.

import { backend } from '../backend';
import type { ClusterDemoMember } from '../backend';

export const DEMO_REFRESH_MS = 1000;

export class ClusterDemo {
  members = $state<ClusterDemoMember[]>([]);
  error = $state<string | null>(null);
  busy = $state(false);
  group = $state('twainmq-demo');
  topic = $state('');

  async refresh(): Promise<void> {
    const r = await backend.clusterDemoMembers();
    if (r.status === 'ok') this.members = r.data;
  }

  async add(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.error = null;
    const r = await backend.clusterDemoStart(this.group, this.topic);
    this.busy = false;
    if (r.status === 'error') this.error = r.error.message;
    await this.refresh();
  }

  async stop(id: number): Promise<void> {
    this.busy = true;
    const r = await backend.clusterDemoStop(id);
    this.busy = false;
    if (r.status === 'error') this.error = r.error.message;
    await this.refresh();
  }
}

/** A member's standing in words. */
export function memberWords(m: ClusterDemoMember): string {
  if (m.error) return `stopped: ${m.error}`;
  if (m.left) return 'left the group';
  if (m.partitions.length > 0) return `holds ${m.partitions.length === 1 ? 'partition' : 'partitions'} ${m.partitions.join(', ')}`;
  return m.joined ? 'holds no partition (more members than partitions)' : 'joining…';
}

export const clusterDemo = new ClusterDemo();
