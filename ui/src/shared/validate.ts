// Live validation mirroring the engine's rules, so mistakes show while typing.
// Each returns null when fine, or a sentence saying what to change. The limits
// are the engine's own, exported into the generated bindings.

import {
  DEFAULT_KEY_TYPE,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_PARTITIONS,
  GROUP_PREFIX,
  KEY_INT_MAX,
  MAX_CHAR_WIDTH,
  MAX_FREE_KEY_BYTES,
  MAX_GROUP_NAME,
  MAX_LINE_BYTES,
  MAX_MESSAGE_BYTES_LIMIT,
  MAX_PARTITIONS,
  MAX_TOPIC_NAME,
} from '../backend/limits';

export {
  DEFAULT_KEY_TYPE,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_PARTITIONS,
  GROUP_PREFIX,
  KEY_INT_MAX,
  MAX_CHAR_WIDTH,
  MAX_FREE_KEY_BYTES,
  MAX_GROUP_NAME,
  MAX_LINE_BYTES,
  MAX_MESSAGE_BYTES_LIMIT,
  MAX_PARTITIONS,
  MAX_TOPIC_NAME,
};

export type IntKeyType = keyof typeof KEY_INT_MAX;

/** The free key types of the format's next version: any text, any bytes, or any key or none. */
export type FreeKeyType = 'text' | 'bytes' | 'any';
export const FREE_KEY_TYPES: FreeKeyType[] = ['text', 'bytes', 'any'];

export type KeyType = { kind: 'int'; name: IntKeyType; bits: 8 | 16 | 32 | 64; max: bigint } | { kind: 'char'; width: number } | { kind: 'free'; name: FreeKeyType };

const isIntKeyType = (text: string): text is IntKeyType => Object.hasOwn(KEY_INT_MAX, text);

/** How a key is typed in the Produce tab: as text, as hex bytes, or none at all. */
export type KeyAs = 'text' | 'hex' | 'none';

/** Parse `u8`, `u16`, `u32`, `u64`, `charN` (1 ≤ N ≤ MAX_CHAR_WIDTH), `text`, `bytes` or `any`; null otherwise. */
export function parseKeyType(text: string): KeyType | null {
  if (isIntKeyType(text)) {
    const max = BigInt(KEY_INT_MAX[text]);
    return { kind: 'int', name: text, bits: max.toString(2).length as 8 | 16 | 32 | 64, max };
  }
  if ((FREE_KEY_TYPES as string[]).includes(text)) return { kind: 'free', name: text as FreeKeyType };
  const c = /^char([0-9]+)$/.exec(text);
  if (c) {
    const n = Number(c[1]);
    if (Number.isInteger(n) && n >= 1 && n <= MAX_CHAR_WIDTH) return { kind: 'char', width: n };
  }
  return null;
}

export function keyTypeProblem(text: string): string | null {
  if (text.trim() === '') return 'choose a key type: u8, u16, u32, u64, charN, text, bytes or any';
  if (parseKeyType(text.trim())) return null;
  if (/^char[0-9]+$/.test(text.trim())) return `charN takes a width from 1 to ${MAX_CHAR_WIDTH} bytes`;
  return 'use u8, u16, u32, u64 (integer keys), charN (text keys of up to N bytes, e.g. char16), or text, bytes or any';
}

/** How keys can be typed for a topic of this key type (its first way the default). */
export function keyWays(keyType: string): KeyAs[] {
  const kt = parseKeyType(keyType);
  if (!kt || kt.kind !== 'free') return ['text'];
  return kt.name === 'bytes' ? ['hex', 'text'] : kt.name === 'any' ? ['text', 'hex', 'none'] : ['text', 'hex'];
}

const encoder = new TextEncoder();

export const utf8Length = (s: string): number => encoder.encode(s).length;

/** Whether `key`, typed `as` text, hex or none, can be sent to a topic whose key type is `keyType` (the topic config's text). */
export function keyProblem(key: string, keyType: string, as: KeyAs = 'text'): string | null {
  const kt = parseKeyType(keyType);
  if (!kt) return `this topic's key type ${JSON.stringify(keyType)} is not one the app knows`;
  if (as === 'none') return kt.kind === 'free' && kt.name === 'any' ? null : `${keyType} topics need a key: only "any" topics take messages without one`;
  if (as === 'hex' && kt.kind !== 'free') return `${keyType} keys are typed as ${kt.kind === 'int' ? 'numbers' : 'text'}, not hex`;
  if (kt.kind === 'free') {
    const bytes = as === 'hex' ? hexBytes(key) : utf8Length(key);
    if (as === 'hex' && bytes === null) return hexProblem(key.replace(/^0x/i, '')) ?? 'only 0-9 and a-f';
    if ((bytes ?? 0) > MAX_FREE_KEY_BYTES) return `the key is ${bytes} bytes; keys hold at most ${MAX_FREE_KEY_BYTES}`;
    return null;
  }
  if (kt.kind === 'int') {
    if (key === '') return `enter a key: a whole number from 0 to ${kt.max}`;
    if (!/^[0-9]+$/.test(key)) return `${keyType} keys are whole numbers: digits 0-9 only`;
    if (BigInt(key) > kt.max) return `${key} is too large for ${keyType}: the largest key is ${kt.max}`;
    return null;
  }
  const bytes = utf8Length(key);
  if (bytes > kt.width) return `the key is ${bytes} bytes of UTF-8; ${keyType} keys hold at most ${kt.width}`;
  if (key.endsWith('\0')) return 'a text key cannot end with a NUL character (NUL pads keys on disk)';
  return null;
}

/** Topic names: 1 to MAX_TOPIC_NAME of A-Z a-z 0-9 _ . -, not "." or "..", not starting with GROUP_PREFIX. */
export function topicNameProblem(name: string): string | null {
  if (name === '') return 'enter a name: letters, digits, _ . and -';
  const bad = [...name].findIndex((c) => !/^[A-Za-z0-9_.-]$/.test(c));
  if (bad >= 0) {
    const ch = [...name][bad];
    const shown = ch === ' ' ? 'a space' : JSON.stringify(ch);
    return `${shown} (character ${bad + 1}) is not allowed: use A-Z a-z 0-9 _ . -`;
  }
  if (name.length > MAX_TOPIC_NAME) return `${name.length} characters is too long: at most ${MAX_TOPIC_NAME}`;
  if (name === '.' || name === '..') return `"${name}" is not a usable name`;
  if (name.startsWith(GROUP_PREFIX)) return `names starting with "${GROUP_PREFIX}" are reserved for consumer groups`;
  return null;
}

/** The device names Windows reserves, as the engine's format/name.rs lists them. */
const WINDOWS_DEVICES = ['CON', 'PRN', 'AUX', 'NUL', ...[...'0123456789'].map((d) => `COM${d}`), ...[...'0123456789'].map((d) => `LPT${d}`)];

/**
 * Why Windows cannot hold a file or folder named `name`, if it cannot (the engine's
 * `windows_problem`): a device name alone or before a dot, in any case; a trailing dot.
 */
export function windowsNameProblem(name: string): string | null {
  const base = name.split('.')[0].replace(/ +$/, '');
  const device = WINDOWS_DEVICES.find((d) => d === base.toUpperCase());
  if (device) return `${device} is a device name on Windows: a folder cannot have it there (stores move between machines)`;
  if (name.endsWith('.') || name.endsWith(' ')) return 'Windows drops a trailing dot: the name would change there';
  return null;
}

/**
 * The name of a topic about to be created (the engine's `validate_new_topic`): a topic name,
 * not ending in .twc, not of the form of the store's temporary files, and one Windows can hold.
 * Topics 0.2.3 made with other names are still read; only new ones are refused.
 */
export function newTopicNameProblem(name: string): string | null {
  const p = topicNameProblem(name);
  if (p) return p;
  if (name.toLowerCase().endsWith('.twc')) return 'a name ending in .twc would be taken for a topic\'s config';
  if (name.startsWith('.') && name.toLowerCase().includes('.twc.tmp')) return 'a name of the form of the store\'s temporary files';
  return windowsNameProblem(name);
}

/** Group names: 1 to MAX_GROUP_NAME of A-Z a-z 0-9 _ . -, not "." or "..". */
export function groupNameProblem(name: string): string | null {
  if (name === '') return 'enter a group name: letters, digits, _ . and -';
  const bad = [...name].findIndex((c) => !/^[A-Za-z0-9_.-]$/.test(c));
  if (bad >= 0) {
    const ch = [...name][bad];
    const shown = ch === ' ' ? 'a space' : JSON.stringify(ch);
    return `${shown} (character ${bad + 1}) is not allowed: use A-Z a-z 0-9 _ . -`;
  }
  if (name.length > MAX_GROUP_NAME) return `${name.length} characters is too long: at most ${MAX_GROUP_NAME}`;
  if (name === '.' || name === '..') return `"${name}" is not a usable name`;
  return null;
}

export function partitionsProblem(text: string): string | null {
  if (!/^[0-9]+$/.test(text.trim())) return `enter a whole number of partitions from 1 to ${MAX_PARTITIONS}`;
  const n = BigInt(text.trim());
  if (n < 1n || n > BigInt(MAX_PARTITIONS)) return `partitions must be from 1 to ${MAX_PARTITIONS}`;
  return null;
}

/** Message type names from a comma-separated list (trimmed, empty ones dropped). */
export function parseTypeNames(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function typeNamesProblem(text: string): string | null {
  const names = parseTypeNames(text);
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) return `${JSON.stringify(n)} is listed twice`;
    seen.add(n);
  }
  return null;
}

/** The bytes of hex text (a 0x prefix and whitespace ignored); null when it is not hex. */
export function hexBytes(text: string): number | null {
  const clean = text.replace(/\s+/g, '').replace(/^0x/i, '');
  return /^([0-9a-fA-F]{2})*$/.test(clean) ? clean.length / 2 : null;
}

/** New Topic's largest message, in MiB (1 to MAX_MESSAGE_BYTES_LIMIT's): bytes, or null when not one. */
export function parseMaxMessageMiB(text: string): number | null {
  const t = text.trim();
  if (!/^[0-9]+$/.test(t)) return null;
  const mib = Number(t);
  return mib >= 1 && mib * 1048576 <= MAX_MESSAGE_BYTES_LIMIT ? mib * 1048576 : null;
}

/** Hex payloads: pairs of 0-9 a-f, whitespace ignored. */
export function hexProblem(text: string): string | null {
  const clean = text.replace(/\s+/g, '');
  if (!/^[0-9a-fA-F]*$/.test(clean)) return 'only 0-9 and a-f (whitespace is ignored)';
  if (clean.length % 2 !== 0) return `an odd number of hex digits (${clean.length}): bytes take two each`;
  return null;
}

/** A decimal offset typed by a person; null when it is not one. */
export function parseOffset(text: string): bigint | null {
  const t = text.trim().replace(/[_,\s]/g, '');
  return /^[0-9]+$/.test(t) ? BigInt(t) : null;
}

