// Writing a record to a cluster from its window: the form's draft (key, value, headers, partition,
// time), what is wrong with it in words before anything is sent, the request it makes, and a
// draft filled from a record read (republish). Pure, so it is tested alone.
import type { BytesInput, ClusterProduceRequest, MessageRow } from '../backend';
import { parseTime, type Tz } from '../shared/format';
import { parseJsonTree } from '../shared/json';

/** How a key is typed: text, hex, or Kafka's null key. */
export type KeyMode = 'text' | 'hex' | 'null';
/** How a value is typed: text, JSON (checked), hex, or none (a tombstone). */
export type ValueMode = 'text' | 'json' | 'hex' | 'null';
/** How a header's value is typed. */
export type HeaderMode = 'text' | 'hex' | 'null';
/** The record's time: now, the republished record's own, or one typed. */
export type TimeMode = 'now' | 'keep' | 'at';

export type HeaderDraft = { name: string; mode: HeaderMode; text: string };

export type ProduceDraft = {
  topic: string;
  /** '' : the key's partition (any for a null key); else a partition number. */
  partition: string;
  keyMode: KeyMode;
  key: string;
  valueMode: ValueMode;
  value: string;
  headers: HeaderDraft[];
  timeMode: TimeMode;
  timeText: string;
  /** The republished record's time (ms), for `keep`. */
  keptMs: number | null;
};

export function emptyDraft(topic: string): ProduceDraft {
  return { topic, partition: '', keyMode: 'text', key: '', valueMode: 'text', value: '', headers: [], timeMode: 'now', timeText: '', keptMs: null };
}

/** Whether `hex` is whole bytes of hex digits (spaces and a leading 0x allowed). */
export function isHex(hex: string): boolean {
  const digits = hex.trim().replace(/^0x/i, '').replace(/\s+/g, '');
  return /^[0-9a-fA-F]*$/.test(digits) && digits.length % 2 === 0;
}

/** Where a JSON text goes wrong, in words; null when it is JSON. */
export function jsonProblem(text: string): string | null {
  if (parseJsonTree(text) !== null) return null;
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    return `not JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** The first thing wrong with the draft, in words; null when it can be sent. `partitions`: the topic's count. */
export function draftProblem(d: ProduceDraft, partitions: number | null, tz: Tz): string | null {
  if (d.topic.trim() === '') return 'Pick the topic to write to.';
  if (partitions === null) return `The cluster has no topic ${d.topic} (a write never makes one).`;
  if (d.partition !== '') {
    if (!/^\d+$/.test(d.partition) || Number(d.partition) >= partitions) return `Partition ${d.partition} is not one of ${d.topic}'s (0 to ${partitions - 1}).`;
  }
  if (d.keyMode === 'hex' && !isHex(d.key)) return 'The key is not hex: pairs of digits 0-9 and a-f, like 7b 0a.';
  if (d.valueMode === 'hex' && !isHex(d.value)) return 'The value is not hex: pairs of digits 0-9 and a-f, like 7b 0a.';
  if (d.valueMode === 'json') {
    const p = jsonProblem(d.value);
    if (p) return `The value is ${p}.`;
  }
  for (const [i, h] of d.headers.entries()) {
    if (h.name === '') return `Header ${i + 1} has no name.`;
    if (h.mode === 'hex' && !isHex(h.text)) return `Header ${h.name}'s value is not hex.`;
  }
  if (d.timeMode === 'at' && parseTime(d.timeText, tz) === null) return 'The time is not one this app reads: YYYY-MM-DD hh:mm[:ss[.mmm]], or RFC 3339 with Z or an offset.';
  if (d.timeMode === 'keep' && d.keptMs === null) return 'There is no record time to keep.';
  return null;
}

function bytesOf(mode: 'text' | 'json' | 'hex', text: string): BytesInput {
  return mode === 'hex' ? { encoding: 'hex', hex: text } : { encoding: 'text', text };
}

/** The request the draft makes (check it with `draftProblem` first). */
export function requestOf(d: ProduceDraft, tz: Tz): ClusterProduceRequest {
  let timestamp_ms: number | null = null;
  if (d.timeMode === 'keep') timestamp_ms = d.keptMs;
  if (d.timeMode === 'at') {
    const t = parseTime(d.timeText, tz);
    timestamp_ms = t === null ? null : Math.round(t * 1000);
  }
  return {
    topic: d.topic.trim(),
    partition: d.partition === '' ? null : Number(d.partition),
    key: d.keyMode === 'null' ? null : bytesOf(d.keyMode, d.key),
    value: d.valueMode === 'null' ? null : bytesOf(d.valueMode, d.value),
    headers: d.headers.map((h) => ({ name: h.name, value: h.mode === 'null' ? null : bytesOf(h.mode, h.text) })),
    timestamp_ms,
  };
}

/** A draft holding a record read (republish): its key, value and headers exactly, nulls kept; to its own topic at first. */
export function draftOf(row: MessageRow, topic: string): ProduceDraft {
  const k = row.kafka;
  const d = emptyDraft(topic);
  if (k?.key_null) d.keyMode = 'null';
  else if (k?.key_binary) {
    d.keyMode = 'hex';
    d.key = row.key.replace(/^0x/, '');
  } else d.key = row.key;
  if (k?.value_null) d.valueMode = 'null';
  else if (row.text !== null) {
    d.value = row.text;
    d.valueMode = parseJsonTree(row.text) !== null && /^\s*[[{]/.test(row.text) ? 'json' : 'text';
  } else {
    d.valueMode = 'hex';
    d.value = row.hex ?? '';
  }
  d.headers = (k?.headers ?? []).map((h) => (h.null ? { name: h.name, mode: 'null', text: '' } : h.text !== null ? { name: h.name, mode: 'text', text: h.text } : { name: h.name, mode: 'hex', text: h.hex ?? '' }));
  d.keptMs = row.timestamp === null ? null : Math.round(row.timestamp * 1000);
  return d;
}
