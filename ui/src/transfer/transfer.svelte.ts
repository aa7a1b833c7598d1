// One export, import or copy as the dialogs follow it: started through the
// backend, its events folded into progress, skipped lines and an end.

import { backend } from '../backend';
import type { BadLine, ErrorDto, ImportStop, Result, TransferDone, TransferEvent, TransferId } from '../backend';

export type RunState = 'idle' | 'starting' | 'running' | 'done' | 'failed';

export class TransferRun {
  state = $state<RunState>('idle');
  done = $state(0n);
  total = $state<bigint | null>(null);
  /** The first skipped (or, in a dry run, bad) lines, as they come. */
  skipped = $state<BadLine[]>([]);
  result = $state<TransferDone | null>(null);
  error = $state<ErrorDto | null>(null);
  /** Messages in the target when a failed import or copy stopped. */
  written = $state<bigint | null>(null);
  /** An import that stopped: exactly which lines are in the topic (a retry goes on from there). */
  stopped = $state<ImportStop | null>(null);
  cancelling = $state(false);
  private id: TransferId | null = null;
  private seq = 0;

  /** The fraction done, when the total is known. */
  get fraction(): number | null {
    if (this.total === null || this.total === 0n) return null;
    return Number((this.done * 1000n) / this.total) / 1000;
  }

  get busy(): boolean {
    return this.state === 'starting' || this.state === 'running';
  }

  reset(): void {
    this.seq++;
    this.state = 'idle';
    this.done = 0n;
    this.total = null;
    this.skipped = [];
    this.result = null;
    this.error = null;
    this.written = null;
    this.stopped = null;
    this.cancelling = false;
    this.id = null;
  }

  /**
   * Forget a refusal once the form it judged has changed: "invalid topic name con" stays
   * no answer to a name that is no longer con. (A transfer that wrote something keeps its
   * report: what landed is still true.)
   */
  forgetRefusal(): void {
    if (this.state === 'failed' && (this.written === null || this.written === 0n)) this.reset();
  }

  /** Start a transfer; resolves once it has ended (done or failed). */
  start(begin: (onEvent: (e: TransferEvent) => void) => Promise<Result<TransferId>>): Promise<void> {
    this.reset();
    const seq = this.seq;
    this.state = 'starting';
    return new Promise((resolve) => {
      const onEvent = (e: TransferEvent) => {
        if (seq !== this.seq) return;
        if (e.event === 'progress') {
          this.state = 'running';
          this.done = BigInt(e.done);
          this.total = e.total === null ? null : BigInt(e.total);
        } else if (e.event === 'skipped') {
          if (this.skipped.length < 200) this.skipped = [...this.skipped, e.bad];
        } else if (e.event === 'done') {
          this.result = e.done;
          this.done = BigInt(e.done.messages);
          this.state = 'done';
          resolve();
        } else {
          this.error = e.error;
          this.written = e.written === null ? null : BigInt(e.written);
          this.stopped = e.stopped;
          this.state = 'failed';
          resolve();
        }
      };
      void begin(onEvent).then((r) => {
        if (seq !== this.seq) return resolve();
        if (r.status === 'error') {
          this.error = r.error;
          this.state = 'failed';
          resolve();
        } else {
          this.id = r.data;
          if (this.state === 'starting') this.state = 'running';
        }
      });
    });
  }

  cancel(): void {
    if (this.id === null || !this.busy) return;
    this.cancelling = true;
    void backend.cancelTransfer(this.id);
  }
}

/** The extension a file path ends in, lower case ('' when none). */
export function extensionOf(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? '';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}
