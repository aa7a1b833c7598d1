// A cluster window's search of the topic picked: the query (text, a regular expression or a CEL
// filter; where text looks), the progress and hits as they stream, a stop. The hits are shown
// in place of the partition's page until the search is closed.

import { backend } from '../backend';
import type { ClusterSearchEvent, MessageRow, SearchMode, SearchWhere } from '../backend';

export class ClusterSearch {
  open = $state(false);
  mode = $state<SearchMode>('text');
  place = $state<SearchWhere>('all');
  text = $state('');
  running = $state(false);
  rows = $state<MessageRow[]>([]);
  scanned = $state('0');
  total = $state('0');
  hits = $state('0');
  /** How the last search ended: null while none ended. */
  ended = $state<{ stopped: boolean; rowsCut: boolean } | null>(null);
  error = $state<string | null>(null);
  /** The topic searched. */
  topic = $state<string | null>(null);
  private gen = 0;

  async run(topic: string): Promise<void> {
    const gen = ++this.gen;
    this.topic = topic;
    this.rows = [];
    this.scanned = this.total = this.hits = '0';
    this.ended = null;
    this.error = null;
    this.running = true;
    this.open = true;
    const r = await backend.clusterSearch(topic, { mode: this.mode, place: this.place, text: this.text }, (ev: ClusterSearchEvent) => {
      if (gen === this.gen) this.on(ev);
    });
    if (r.status === 'error' && gen === this.gen) {
      this.error = r.error.message;
      this.running = false;
    }
  }

  private on(ev: ClusterSearchEvent): void {
    switch (ev.event) {
      case 'progress':
        this.scanned = ev.scanned;
        this.total = ev.total;
        this.hits = ev.hits;
        break;
      case 'hits':
        this.rows = [...this.rows, ...ev.rows];
        break;
      case 'done':
        this.scanned = ev.scanned;
        this.total = ev.total;
        this.hits = ev.hits;
        this.ended = { stopped: ev.stopped, rowsCut: ev.rows_cut };
        this.running = false;
        break;
      case 'failed':
        this.error = ev.error.message;
        this.running = false;
        break;
    }
  }

  async stop(): Promise<void> {
    await backend.clusterCancelSearch();
  }

  /** Close the results (stopping a search still running): the partition's page is shown again. */
  close(): void {
    if (this.running) void this.stop();
    this.gen++;
    this.running = false;
    this.open = false;
  }
}

export const clusterSearch = new ClusterSearch();
