// Columns the user picks from the records' JSON values: `value.country`, `customer.id`,
// `items[0].sku`. Numbers come out exactly as written (a 20-digit id stays whole), strings
// without their quotes, objects and arrays as compact JSON; a record whose value is not JSON,
// or has no such field, shows nothing there.

import { parseJsonTree, readable, type JsonNode } from '../shared/json';

/** A path's steps: field names and array indexes. */
export type Step = { field: string } | { index: number };

/** The steps of `path` (`value.` in front allowed), or why it is not one. */
export function parsePath(path: string): Step[] | string {
  const p = path.trim().replace(/^value\.?/, '');
  if (p === '') return 'name a field of the value, like country or customer.id or items[0].sku';
  const steps: Step[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|(\.)/g;
  let m: RegExpExecArray | null;
  let at = 0;
  let afterDot = true;
  while ((m = re.exec(p)) !== null) {
    if (m.index !== at) return `${path.trim()} is not a field path: like country or customer.id or items[0].sku`;
    at = re.lastIndex;
    if (m[1] !== undefined) {
      if (!afterDot && steps.length > 0) return `${path.trim()} is not a field path: like country or customer.id or items[0].sku`;
      steps.push({ field: m[1] });
      afterDot = false;
    } else if (m[2] !== undefined) {
      if (steps.length === 0) return `${path.trim()} starts with an index: name a field first, like items[0]`;
      steps.push({ index: Number(m[2]) });
      afterDot = false;
    } else {
      if (afterDot) return `${path.trim()} is not a field path: like country or customer.id or items[0].sku`;
      afterDot = true;
    }
  }
  if (at !== p.length || afterDot) return `${path.trim()} is not a field path: like country or customer.id or items[0].sku`;
  return steps;
}

/** The field at `steps` of `node`, or null. */
function walk(node: JsonNode, steps: Step[]): JsonNode | null {
  let n: JsonNode = node;
  for (const s of steps) {
    if ('field' in s) {
      if (n.t !== 'object') return null;
      const e = n.entries.find((x) => {
        try {
          return (JSON.parse(x.rawKey) as string) === s.field;
        } catch {
          return false;
        }
      });
      if (!e) return null;
      n = e.value;
    } else {
      if (n.t !== 'array' || s.index >= n.items.length) return null;
      n = n.items[s.index];
    }
  }
  return n;
}

/** The text of the field at `steps` in the JSON `text`; '' when not JSON or not there. */
export function fieldText(text: string | null, steps: Step[]): string {
  if (text === null) return '';
  const tree = parseJsonTree(text);
  if (tree === null) return '';
  const n = walk(tree, steps);
  if (n === null) return '';
  if (n.t === 'string') {
    try {
      return JSON.parse(n.raw) as string;
    } catch {
      return n.raw;
    }
  }
  return readable(n);
}
