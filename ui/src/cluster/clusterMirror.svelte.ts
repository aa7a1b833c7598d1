// A mirror between the window's cluster and a store folder, as its dialog follows it: started
// through the backend (the bridge's mirror), its news folded into where it resumed, what it
// wrote, what is left, and how it ended; stopped with the transfers' cancel.

import { backend } from '../backend';
import type { ClusterMirrorEvent, ClusterMirrorRequest, ErrorDto, Offset, TransferId } from '../backend';
import { counted, groupDigits } from '../shared/format';

export type MirrorState = 'idle' | 'starting' | 'running' | 'done' | 'failed';

/** Where each partition resumed, in words: "from the start" or "partition 0 at 10, 1 at 12". */
export function resumedText(from: Offset[]): string {
  if (from.every((o) => o === '0')) return 'from the start of every partition';
  return `going on from where the target is: ${from.map((o, p) => `partition ${p} at ${groupDigits(o)}`).join(', ')}`;
}

/** A duration in seconds (null: not a number, as JSON carries NaN). */
function secondsText(s: number | null): string {
  if (s === null) return 'an unknown time';
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}

/** How a mirror ended, in one sentence. */
export function endText(e: Extract<ClusterMirrorEvent, { event: 'done' }>, target: string): string {
  const what = `${counted(e.mirrored, 'record')} written to ${target}${e.created ? ' (made for it)' : ''} in ${secondsText(e.seconds)}`;
  const groups = e.groups.length ? `; the commits of ${counted(e.groups.length, 'consumer group')} carried across (${e.groups.join(', ')})` : '';
  const retries = e.retries !== '0' ? `; the cluster failed ${counted(e.retries, 'time')} and the mirror went on` : '';
  return e.stopped
    ? `Stopped: ${what}${groups}${retries}. Starting it again goes on from there: nothing is written twice.`
    : `Done: ${what}${groups}${retries}.`;
}

export class MirrorRun {
  state = $state<MirrorState>('idle');
  from = $state<Offset[] | null>(null);
  created = $state(false);
  mirrored = $state(0n);
  left = $state<bigint | null>(null);
  /** The last retry or wait, said while it lasts. */
  note = $state<string | null>(null);
  ended = $state<Extract<ClusterMirrorEvent, { event: 'done' }> | null>(null);
  error = $state<ErrorDto | null>(null);
  stopping = $state(false);
  private id: TransferId | null = null;
  private seq = 0;

  get busy(): boolean {
    return this.state === 'starting' || this.state === 'running';
  }

  reset(): void {
    this.seq++;
    this.state = 'idle';
    this.from = null;
    this.created = false;
    this.mirrored = 0n;
    this.left = null;
    this.note = null;
    this.ended = null;
    this.error = null;
    this.stopping = false;
    this.id = null;
  }

  /** Fold one of the mirror's events in. */
  apply(e: ClusterMirrorEvent): void {
    if (e.event === 'started') {
      this.state = 'running';
      this.from = e.from;
      this.created = e.created;
    } else if (e.event === 'progress') {
      this.state = 'running';
      this.mirrored = BigInt(e.mirrored);
      this.left = e.left === null ? null : BigInt(e.left);
      this.note = null;
    } else if (e.event === 'retrying') {
      this.note = `The cluster failed (${e.reason}); trying again in ${secondsText(e.after_secs)}.`;
    } else if (e.event === 'waiting') {
      this.note = `Waiting: ${e.reason}.`;
    } else if (e.event === 'done') {
      this.ended = e;
      this.mirrored = BigInt(e.mirrored);
      this.state = 'done';
    } else {
      this.error = e.error;
      this.state = 'failed';
    }
  }

  /** Start it; resolves once it has ended. */
  async start(request: ClusterMirrorRequest): Promise<void> {
    this.reset();
    const seq = this.seq;
    this.state = 'starting';
    let finish: () => void = () => {};
    const ended = new Promise<void>((r) => (finish = r));
    const r = await backend.clusterMirror(request, (e) => {
      if (seq !== this.seq) return;
      this.apply(e);
      if (e.event === 'done' || e.event === 'failed') finish();
    });
    if (seq !== this.seq) return;
    if (r.status === 'error') {
      this.error = r.error;
      this.state = 'failed';
      return;
    }
    this.id = r.data;
    if (this.state === 'starting') this.state = 'running';
    await ended;
  }

  stop(): void {
    if (this.id === null || !this.busy) return;
    this.stopping = true;
    void backend.cancelTransfer(this.id);
  }
}
