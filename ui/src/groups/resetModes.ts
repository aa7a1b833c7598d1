// The reset dialog's modes: what each needs typed, and the request it makes
// (every mode of `twainmq groups reset --to`, and an import from a file).

import type { OffsetsFile, ResetPlanDto, ResetRequest } from '../backend';
import { parseTime, type Tz } from '../shared/format';
import { parseDuration } from './lagAlerts';
import { parseOffset } from '../shared/validate';

export type ResetMode = 'earliest' | 'latest' | 'offset' | 'time' | 'shift' | 'ago' | 'group' | 'file';

export const RESET_MODES: { id: ResetMode; label: string }[] = [
  { id: 'earliest', label: 'earliest' },
  { id: 'latest', label: 'latest' },
  { id: 'offset', label: 'offset…' },
  { id: 'time', label: 'time…' },
  { id: 'shift', label: 'shift by ±N…' },
  { id: 'ago', label: 'duration ago…' },
  { id: 'group', label: 'another group’s offsets…' },
  { id: 'file', label: 'offsets from a file…' },
];

/** What the person typed or picked for the modes that need it. */
export type ResetForm = {
  mode: ResetMode;
  offsetText: string;
  timeText: string;
  shiftText: string;
  agoText: string;
  otherGroup: string;
  file: OffsetsFile | null;
  tz: Tz;
};

/** A shift as typed: `-100`, `+5`, `5` (up to ±2^63−1); null if not one. */
export function parseShift(text: string): string | null {
  const t = text.trim().replace(/[\s,_]/g, '');
  if (!/^[+-]?\d{1,19}$/.test(t)) return null;
  const n = BigInt(t);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n.toString() : null;
}

/** Why the form cannot make a request yet (null: it can). */
export function formProblem(f: ResetForm): string | null {
  switch (f.mode) {
    case 'offset':
      return parseOffset(f.offsetText) === null ? 'type an offset: a whole number' : null;
    case 'time':
      return parseTime(f.timeText.replace('T', ' '), f.tz) === null ? `pick a date and time (${f.tz === 'utc' ? 'UTC' : 'local time'})` : null;
    case 'shift':
      return parseShift(f.shiftText) === null || parseShift(f.shiftText) === '0' ? 'type a number of messages to move by, e.g. -100 (back: read again) or +50 (skip)' : null;
    case 'ago':
      return parseDuration(f.agoText) === null ? 'type a duration such as 30m, 2h, 1d or 1h30m' : null;
    case 'group':
      return f.otherGroup === '' ? 'pick the group whose offsets to copy' : null;
    case 'file':
      return f.file === null ? 'open an offsets file (the JSON twainmq groups export writes)' : null;
    default:
      return null;
  }
}

/** The request the form makes (without dry_run), or null while formProblem says why not. */
export function requestOf(f: ResetForm, partitions: number[] | null): Omit<ResetRequest, 'dry_run'> | null {
  if (formProblem(f) !== null) return null;
  return {
    to: f.mode === 'file' ? 'offsets' : f.mode,
    offset: f.mode === 'offset' ? parseOffset(f.offsetText)!.toString() : null,
    time: f.mode === 'time' ? parseTime(f.timeText.replace('T', ' '), f.tz) : null,
    shift: f.mode === 'shift' ? parseShift(f.shiftText) : null,
    ago_secs: f.mode === 'ago' ? parseDuration(f.agoText) : null,
    other_group: f.mode === 'group' ? f.otherGroup : null,
    offsets: f.mode === 'file' ? f.file!.offsets : null,
    file_group: f.mode === 'file' ? f.file!.group : null,
    file_topic: f.mode === 'file' ? f.file!.topic : null,
    partitions,
    topic: null,
  };
}

/**
 * The request Confirm sends: the offsets the dry run showed, partition by partition. A target
 * that moves with time or writes (a duration ago, the end, a shift from a commit a member just
 * moved) computed again at Confirm would commit something else than the table the user
 * checked ("ago 1d" previewed 166,423 and committed 166,435).
 */
export function confirmRequest(plan: ResetPlanDto): ResetRequest {
  const offsets: Record<string, string> = {};
  for (const r of plan.rows) offsets[String(r.partition)] = r.after;
  return {
    to: 'offsets',
    offset: null,
    time: null,
    shift: null,
    ago_secs: null,
    other_group: null,
    offsets,
    file_group: null,
    file_topic: null,
    partitions: plan.rows.map((r) => r.partition),
    topic: plan.topic,
    dry_run: false,
  };
}

/** Rows whose committed offset is not the one the dry run showed (the partition changed meanwhile, e.g. retention). */
export function movedRows(shown: ResetPlanDto, done: ResetPlanDto): { partition: number; shown: string; committed: string }[] {
  const was = new Map(shown.rows.map((r) => [r.partition, r.after]));
  return done.rows.filter((r) => was.get(r.partition) !== r.after).map((r) => ({ partition: r.partition, shown: was.get(r.partition) ?? '–', committed: r.after }));
}

/** What the mode does, in a line under the choice. */
export function modeText(f: ResetForm): string {
  switch (f.mode) {
    case 'earliest':
      return 'the earliest offset (replay everything)';
    case 'latest':
      return 'the latest offset (skip everything not yet read)';
    case 'offset':
      return `offset ${f.offsetText.trim() || 'N'} (clamped to each partition's range)`;
    case 'time':
      return 'the first message at or after the time';
    case 'shift': {
      const n = parseShift(f.shiftText);
      return n === null ? 'each committed offset moved by N messages (clamped to the partition)' : n.startsWith('-') ? `each committed offset moved back ${n.slice(1)} messages (read again)` : `each committed offset moved ahead ${n} messages (skipped)`;
    }
    case 'ago':
      return `the first message at or after ${f.agoText.trim() || 'the duration'} before now (by the store's clock)`;
    case 'group':
      return f.otherGroup ? `the committed offsets of ${f.otherGroup} (partitions it has no commit for stay)` : 'the committed offsets of another group on the same topic';
    case 'file':
      return f.file ? `the offsets in ${f.file.path} (partitions it does not name stay)` : 'the offsets in a file twainmq groups export wrote';
  }
}
