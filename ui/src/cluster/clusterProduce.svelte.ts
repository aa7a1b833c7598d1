// A cluster window's produce dialog: a record written from scratch, or a record read written
// again (republish) to its own topic or another. The draft is checked before anything is sent;
// once the cluster confirmed the write, the window says where it landed and offers to show it.

import { backend } from '../backend';
import type { ClusterProduced, MessageRow } from '../backend';
import { prefs } from '../app/prefs.svelte';
import { clusterView } from './clusterView.svelte';
import { draftOf, draftProblem, emptyDraft, requestOf, type ProduceDraft } from './produce';

export class ProduceForm {
  open = $state(false);
  draft = $state<ProduceDraft>(emptyDraft(''));
  /** The record republished, as `topic/partition@offset`; null for a new record. */
  from = $state<string | null>(null);
  sending = $state(false);
  error = $state<string | null>(null);

  partitions = $derived<number | null>(clusterView.info?.topics.find((t) => t.name === this.draft.topic)?.partitions.length ?? null);
  problem = $derived<string | null>(draftProblem(this.draft, this.partitions, prefs.tz));

  show(topic: string): void {
    this.draft = emptyDraft(topic);
    this.from = null;
    this.error = null;
    this.open = true;
  }

  republish(row: MessageRow, topic: string): void {
    this.draft = draftOf(row, topic);
    this.from = `${topic}/${row.partition}@${row.offset}`;
    this.error = null;
    this.open = true;
  }

  close(): void {
    this.open = false;
  }

  addHeader(): void {
    this.draft.headers.push({ name: '', mode: 'text', text: '' });
  }

  removeHeader(i: number): void {
    this.draft.headers.splice(i, 1);
  }

  /** Send it; on success close and let the window say where it landed. */
  async send(): Promise<ClusterProduced | null> {
    if (this.problem || this.sending) return null;
    this.sending = true;
    const r = await backend.clusterProduce(requestOf(this.draft, prefs.tz));
    this.sending = false;
    if (r.status === 'error') {
      this.error = r.error.message;
      return null;
    }
    this.open = false;
    clusterView.written(r.data, this.from);
    return r.data;
  }
}

export const produceForm = new ProduceForm();
