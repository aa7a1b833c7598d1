// Paths into a message's JSON, as the filter language writes them (docs/QUERY.md):
// `value.a.b`, `value.items[0]`, `value["odd key"]`. The JSON tree's "copy path" gives these,
// so a path copied from a message pastes into the filter box as it is.

import { compact, type JsonNode } from '../shared/json';

export type PathSeg = string | number;

/** CEL's reserved words: not usable as a field selected with a dot. */
const RESERVED = new Set([
  'as', 'break', 'const', 'continue', 'else', 'false', 'for', 'function', 'if', 'import', 'in', 'let',
  'loop', 'package', 'namespace', 'null', 'return', 'true', 'var', 'void', 'while',
]);

/** The filter language's path of `segs` under `root` (`value`). */
export function celPath(segs: PathSeg[], root = 'value'): string {
  let out = root;
  for (const s of segs) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !RESERVED.has(s)) out += `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** A node's identity in its tree (its path), for the set of collapsed nodes. */
export const nodeId = (segs: PathSeg[]): string => JSON.stringify(segs);

/** The ids of every object and array under `n` that has children, `n` itself included. */
export function containerIds(n: JsonNode, segs: PathSeg[] = []): string[] {
  const out: string[] = [];
  const walk = (node: JsonNode, at: PathSeg[]) => {
    if (node.t === 'object' && node.entries.length > 0) {
      out.push(nodeId(at));
      for (const e of node.entries) walk(e.value, [...at, e.key]);
    } else if (node.t === 'array' && node.items.length > 0) {
      out.push(nodeId(at));
      node.items.forEach((item, i) => walk(item, [...at, i]));
    }
  };
  walk(n, segs);
  return out;
}

/** What "copy value" copies: a scalar's text as stored (a string decoded), a container as compact JSON. */
export function copyValue(n: JsonNode): string {
  if (n.t === 'string') {
    try {
      return JSON.parse(n.raw) as string;
    } catch {
      return n.raw;
    }
  }
  return compact(n);
}

/** A collapsed container's summary: `{…} 3 keys`, `[…] 5 items`. */
export function summary(n: JsonNode): string {
  if (n.t === 'object') return `{…} ${n.entries.length} ${n.entries.length === 1 ? 'key' : 'keys'}`;
  if (n.t === 'array') return `[…] ${n.items.length} ${n.items.length === 1 ? 'item' : 'items'}`;
  return '';
}
