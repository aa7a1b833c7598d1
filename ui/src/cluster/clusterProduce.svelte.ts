// A cluster window's produce dialog: a record written from scratch, or a record read written
// again (republish) to its own topic or another. The draft is checked before anything is sent;
// once the cluster confirmed the write, the window says where it landed and offers to show it.

import { backend } from '../backend';
import type { ClusterProduced, MessageRow } from '../backend';
import { prefs } from '../app/prefs.svelte';
import { clusterView } from './clusterView.svelte';
import { draftOf, draftProblem, emptyDraft, requestOf, type ProduceDraft } from './produce';
import { deleteTemplate, loadTemplates, saveTemplate, type Template } from './templates';

export class ProduceForm {
  open = $state(false);
  draft = $state<ProduceDraft>(emptyDraft(''));
  /** The record republished, as `topic/partition@offset`; null for a new record. */
  from = $state<string | null>(null);
  sending = $state(false);
  error = $state<string | null>(null);
  templates = $state<Template[]>([]);
  templateNote = $state<string | null>(null);

  partitions = $derived<number | null>(clusterView.info?.topics.find((t) => t.name === this.draft.topic)?.partitions.length ?? null);
  problem = $derived<string | null>(draftProblem(this.draft, this.partitions, prefs.tz));

  show(topic: string): void {
    this.templates = loadTemplates();
    this.templateNote = null;
    this.draft = emptyDraft(topic);
    this.from = null;
    this.error = null;
    this.open = true;
  }

  /** Fill the form from a saved template (its topic kept only when the cluster has it). */
  useTemplate(name: string): void {
    const t = this.templates.find((x) => x.name === name);
    if (!t) return;
    const topic = clusterView.info?.topics.some((x) => x.name === t.draft.topic) ? t.draft.topic : this.draft.topic;
    this.draft = { ...JSON.parse(JSON.stringify(t.draft)), topic };
    this.templateNote = topic === t.draft.topic ? `Filled from “${name}”.` : `Filled from “${name}”; its topic ${t.draft.topic} is not on this cluster, so ${topic} is kept.`;
  }

  /** Save the form as a template named `name`. */
  saveAs(name: string): void {
    const r = saveTemplate(name, this.draft, Date.now());
    if (typeof r === 'string') this.templateNote = r;
    else {
      this.templates = r;
      this.templateNote = `Saved as “${name.trim()}”.`;
    }
  }

  forgetTemplate(name: string): void {
    this.templates = deleteTemplate(name);
    this.templateNote = `“${name}” forgotten.`;
  }

  republish(row: MessageRow, topic: string): void {
    this.templates = loadTemplates();
    this.templateNote = null;
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
