// A large message's payload in the detail pane: its first PAYLOAD_PREVIEW_BYTES at once,
// the rest only when asked ("Show all"), a MAX_PAYLOAD_SLICE at a time with progress and
// a stop, so that no answer and no drawing holds the window for long whatever its size.

import { backend } from '../backend';
import type { MessageRow, PayloadKind } from '../backend';
import { MAX_PAYLOAD_SLICE, PAYLOAD_PREVIEW_BYTES } from '../backend/limits';

export type Whole = {
  kind: PayloadKind;
  /** The payload's text (text, typed JSON) or hex (bytes), as far as read. */
  data: string;
  /** Bytes read so far, and the whole payload's. */
  read: number;
  /** Bytes of the payload `data` holds (the rest is read, not yet drawn). */
  shown: number;
  size: number;
  loading: boolean;
  error: string;
};

export class PayloadReader {
  whole = $state<Whole | null>(null);
  private seq = 0;
  /** The slices read so far (joined when the last comes). */
  private pieces: string[] = [];

  constructor(
    private readonly topic: string,
    private readonly incarnation: string | null,
    private readonly row: MessageRow,
  ) {}

  /** Whether everything is read. */
  get complete(): boolean {
    return this.whole !== null && this.whole.read >= this.whole.size && !this.whole.error;
  }

  /** The first PAYLOAD_PREVIEW_BYTES (what the pane shows at once). */
  async preview(): Promise<void> {
    await this.read(0, PAYLOAD_PREVIEW_BYTES, ++this.seq);
  }

  /** The rest, a slice at a time, until read whole, stopped, or failed. */
  async all(): Promise<void> {
    const seq = ++this.seq;
    if (!this.whole) await this.read(0, PAYLOAD_PREVIEW_BYTES, seq);
    while (seq === this.seq && this.whole && !this.whole.error && this.whole.read < this.whole.size) {
      if (!(await this.read(this.whole.read, MAX_PAYLOAD_SLICE, seq))) break;
    }
  }

  /** Stop reading (what was read stays). */
  stop(): void {
    this.seq++;
    if (this.whole) this.whole.loading = false;
  }

  private async read(from: number, len: number, seq: number): Promise<boolean> {
    const w = this.whole;
    if (w) w.loading = true;
    const r = await backend.messagePayload(this.topic, this.row.partition, this.row.offset, this.incarnation, String(from), len);
    if (seq !== this.seq) return false;
    if (r.status === 'error') {
      this.whole = { ...(w ?? { kind: this.row.kind, data: '', read: 0, shown: 0, size: this.row.size }), loading: false, error: r.error.message };
      return false;
    }
    const s = r.data;
    const piece = s.kind === 'bytes' ? (s.hex ?? '') : (s.text ?? '');
    if (from === 0) this.pieces = [];
    this.pieces.push(piece);
    const read = Number(s.next);
    const size = Number(s.size);
    // The pane draws the text once it is whole (or the first slice): never a growing 10 MB
    // text laid out again at every slice.
    const data = from === 0 || read >= size ? this.pieces.join('') : (w?.data ?? '');
    const shown = from === 0 || read >= size ? read : (w?.shown ?? 0);
    this.whole = { kind: s.kind, data, read, shown, size, loading: read < size && from !== 0, error: '' };
    return true;
  }
}
