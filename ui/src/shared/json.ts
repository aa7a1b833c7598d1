// JSON handled as text: numbers are never parsed into JS numbers, so integers
// past 2^53 (and 1.50, 1e400, NaN) come out exactly as they went in.

import type { MessageRow, Row } from '../backend';

export type JsonNode =
  | { t: 'object'; entries: { key: string; rawKey: string; value: JsonNode }[] }
  | { t: 'array'; items: JsonNode[] }
  | { t: 'string'; raw: string }
  | { t: 'number'; raw: string }
  | { t: 'literal'; raw: string };

class JsonError extends Error {}

const MAX_DEPTH = 500;

/**
 * Parse JSON (and Python's NaN, Infinity, -Infinity) into a tree that keeps each
 * scalar's source text. Throws on invalid input.
 */
function parseTree(text: string): JsonNode {
  let i = 0;
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const fail = (what: string): never => {
    throw new JsonError(`${what} at character ${i}`);
  };
  const str = (): string => {
    const s = i;
    i++; // opening quote
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i++;
        return text.slice(s, i);
      }
      if (c === '\\') {
        const n = text[i + 1];
        if (n === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('bad \\u escape');
          i += 6;
        } else if (n !== undefined && '"\\/bfnrt'.includes(n)) i += 2;
        else fail('bad escape');
      } else if (text.charCodeAt(i) < 0x20) fail('control character in string');
      else i++;
    }
    return fail('unterminated string');
  };
  const num = (): string => {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 4096));
    if (!m || m[0] === '-' || m[0] === '') fail('bad number');
    i += m![0].length;
    return m![0];
  };
  const value = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: { key: string; rawKey: string; value: JsonNode }[] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'object', entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const rawKey = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        const v = value(depth + 1);
        entries.push({ key: JSON.parse(rawKey) as string, rawKey, value: v });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { t: 'object', entries };
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { t: 'array', items };
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return { t: 'string', raw: str() };
    for (const lit of ['true', 'false', 'null', 'NaN', 'Infinity', '-Infinity']) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return { t: 'literal', raw: lit };
      }
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return { t: 'number', raw: num() };
    return fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`);
  };
  const v = value(0);
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

/** The tree of `text`, or null when it is not JSON. */
export function parseJsonTree(text: string): JsonNode | null {
  try {
    return parseTree(text);
  } catch (e) {
    if (e instanceof JsonError || e instanceof SyntaxError) return null;
    throw e;
  }
}

function render(n: JsonNode, indent: string, level: number, out: string[]): void {
  switch (n.t) {
    case 'object': {
      if (n.entries.length === 0) {
        out.push('{}');
        return;
      }
      out.push('{');
      n.entries.forEach((e, k) => {
        out.push('\n', indent.repeat(level + 1), e.rawKey, ': ');
        render(e.value, indent, level + 1, out);
        if (k < n.entries.length - 1) out.push(',');
      });
      out.push('\n', indent.repeat(level), '}');
      return;
    }
    case 'array': {
      if (n.items.length === 0) {
        out.push('[]');
        return;
      }
      out.push('[');
      n.items.forEach((item, k) => {
        out.push('\n', indent.repeat(level + 1));
        render(item, indent, level + 1, out);
        if (k < n.items.length - 1) out.push(',');
      });
      out.push('\n', indent.repeat(level), ']');
      return;
    }
    default:
      out.push(n.raw);
  }
}

/** Compact source text of a node. */
export function compact(n: JsonNode): string {
  switch (n.t) {
    case 'object':
      return '{' + n.entries.map((e) => e.rawKey + ':' + compact(e.value)).join(',') + '}';
    case 'array':
      return '[' + n.items.map(compact).join(',') + ']';
    default:
      return n.raw;
  }
}

/** A string literal as a person reads it: \u escapes of printable characters decoded (ü, 🚀), quotes and control characters still escaped. */
export function readableString(raw: string): string {
  if (!raw.includes('\\u')) return raw;
  try {
    // A string literal parses to a string exactly (no number is involved); stringify escapes
    // only quotes, backslashes, control characters and lone surrogates.
    return JSON.stringify(JSON.parse(raw) as string);
  } catch {
    return raw;
  }
}

/** Compact JSON with its strings readable (see readableString); numbers exactly as written. */
export function readable(n: JsonNode): string {
  switch (n.t) {
    case 'object':
      return '{' + n.entries.map((e) => readableString(e.rawKey) + ':' + readable(e.value)).join(',') + '}';
    case 'array':
      return '[' + n.items.map(readable).join(',') + ']';
    case 'string':
      return readableString(n.raw);
    default:
      return n.raw;
  }
}

/** `text` compact with readable strings; `text` itself when it is not JSON. */
export function readableJson(text: string): string {
  const tree = parseJsonTree(text);
  return tree ? readable(tree) : text;
}

/** `text` indented two spaces a level, every scalar exactly as written; null when not JSON. */
export function prettyJson(text: string, indent = '  '): string | null {
  const tree = parseJsonTree(text);
  if (!tree) return null;
  const out: string[] = [];
  render(tree, indent, 0, out);
  return out.join('');
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether a JSON number literal is an integer a JS number cannot hold exactly. */
export function isUnsafeInteger(raw: string): boolean {
  if (!/^-?\d+$/.test(raw)) return false;
  const v = BigInt(raw);
  return v > SAFE || v < -SAFE;
}

/** Whether JSON `text` holds an integer past 2^53 (JSON.parse would change it). */
export function hasUnsafeIntegers(text: string): boolean {
  const tree = parseJsonTree(text);
  if (!tree) return false;
  const walk = (n: JsonNode): boolean =>
    n.t === 'number'
      ? isUnsafeInteger(n.raw)
      : n.t === 'object'
        ? n.entries.some((e) => walk(e.value))
        : n.t === 'array'
          ? n.items.some(walk)
          : false;
  return walk(tree);
}

/** Top-level fields of a JSON object as (name, compact source text); null when not an object. */
export function objectFields(text: string): { name: string; raw: string; text: string; kind: JsonNode['t'] }[] | null {
  const tree = parseJsonTree(text);
  if (!tree || tree.t !== 'object') return null;
  return tree.entries.map((e) => ({ name: e.key, raw: compact(e.value), text: readable(e.value), kind: e.value.t }));
}

/** A JSON string literal. */
export const jsonString = (s: string): string => JSON.stringify(s);

/** A key as the CLI's JSON writes it: an integer as a number, text as a string, bytes as `{"hex": ...}`, no key as null. */
export function keyAsJson(key: string, kind: MessageRow['key_kind']): string {
  if (kind === 'int' && /^\d+$/.test(key)) return key;
  if (kind === 'bytes') return `{"hex":${jsonString(key)}}`;
  if (kind === 'null') return 'null';
  return jsonString(key);
}

/**
 * A row as one JSON object, built as text so offsets, u64 keys and typed fields stay exact.
 * `whole`: the whole payload of a truncated row (its text, hex or fields JSON), read since;
 * without it a truncated row says so (`"truncated": true`) rather than pass for the whole.
 */
export function rowAsJson(row: Row, whole?: string): string {
  const parts: string[] = [];
  const add = (k: string, raw: string) => parts.push(`${jsonString(k)}:${raw}`);
  add('partition', String(row.partition));
  add('offset', /^\d+$/.test(row.offset) ? row.offset : jsonString(row.offset));
  if (row.row === 'damaged') {
    add('damaged', 'true');
    add('file', jsonString(row.file));
    add('line', /^\d+$/.test(row.line) ? row.line : jsonString(row.line));
    add('problem', jsonString(row.problem));
    return '{' + parts.join(',') + '}';
  }
  if (row.row === 'part') {
    add('part', 'true');
    if (row.next_message !== null) add('message', row.next_message);
    return '{' + parts.join(',') + '}';
  }
  const m: MessageRow = row;
  const payload = (own: string | null) => (m.truncated && whole !== undefined ? whole : (own ?? ''));
  add('key', keyAsJson(m.key, m.key_kind));
  add('timestamp', m.timestamp === null || !Number.isFinite(m.timestamp) ? 'null' : String(m.timestamp));
  add('kind', jsonString(m.kind));
  if (m.kind === 'dataclass') {
    add('class', m.class === null ? 'null' : jsonString(m.class));
    add('type_id', m.type_id === null ? 'null' : String(m.type_id));
    // The stored JSON text, verbatim (it is already JSON, big integers included).
    if (m.truncated && whole === undefined) add('fields_start', jsonString(m.fields_json ?? ''));
    else add('fields', payload(m.fields_json) || 'null');
  } else if (m.kind === 'bytes') {
    add('hex', jsonString(payload(m.hex)));
  } else {
    add('text', jsonString(payload(m.text)));
  }
  add('size', String(m.size));
  if (m.truncated && whole === undefined) add('truncated', 'true');
  return '{' + parts.join(',') + '}';
}

/** A message's payload as the detail's Text view shows it (typed: its fields' JSON; bytes: hex); null for a damaged line or a part, and for a truncated row (its whole is read first). */
export function payloadAsText(r: Row): string | null {
  if (r.row !== 'message' || r.truncated) return null;
  return r.kind === 'dataclass' ? (r.fields_pretty ?? r.fields_json) : r.kind === 'bytes' ? r.hex : r.text;
}
