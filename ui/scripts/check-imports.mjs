// The UI's folders import only downward (docs/ARCHITECTURE.md): run by `npm run check`.
//
// Each file's rank, lowest first: backend/ < shared/ < the app's state (app/*.ts) < search/ <
// transfer/ < groups/ < messages/ < topics/ < store/ < the app's frame (app/*.svelte) < main.ts.
// A file imports only from its own rank or below; outside backend/, only backend/index.ts (the
// door), api.ts (types) and limits.ts (constants) are imported from it, and only backend/ names
// @tauri-apps. No two modules import each other, even through others. Tests (*.test.ts) may
// import anything (they render the app), but not around the door.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ui = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(ui, 'src');
const ORDER = ['backend', 'shared', 'app-state', 'search', 'transfer', 'groups', 'messages', 'topics', 'cluster', 'store', 'app-frame', 'main'];
const DOOR = ['backend/index.ts', 'backend/api.ts', 'backend/limits.ts'];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|svelte)$/.test(name) ? [p] : [];
  });
}

/** A file's layer: its folder, the app's state and frame told apart. */
function layer(rel) {
  const [top] = rel.split('/');
  if (rel === 'main.ts') return 'main';
  if (top === 'app') return rel.endsWith('.svelte') ? 'app-frame' : 'app-state';
  if (!ORDER.includes(top)) throw new Error(`${rel} is in no layer: add its folder to scripts/check-imports.mjs`);
  return top;
}

/** What a file imports: static and dynamic imports, re-exports, and vi.mock's modules. */
function specifiers(text) {
  const out = [];
  const re = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|vi\.mock\(\s*['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  return out;
}

function resolveImport(from, spec, known) {
  const base = resolve(dirname(from), spec.split('?')[0]);
  for (const c of [base, `${base}.ts`, join(base, 'index.ts')]) if (known.has(c)) return c;
  return null;
}

const all = files(src);
const known = new Set(all);
const edges = new Map();
const wrong = [];
for (const file of all) {
  const rel = relative(src, file);
  const test = rel.endsWith('.test.ts');
  const own = layer(rel);
  // Comments may show an import: only code counts.
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const targets = [];
  for (const spec of specifiers(text)) {
    if (spec.startsWith('@tauri-apps/')) {
      if (own !== 'backend') wrong.push(`${rel} imports ${spec}: only backend/ talks to Tauri`);
      continue;
    }
    if (!spec.startsWith('.')) continue;
    const target = resolveImport(file, spec, known);
    if (!target) continue; // an asset (CSS, the recording)
    const trel = relative(src, target);
    targets.push(target);
    if (own !== 'backend' && trel.startsWith('backend/') && !DOOR.includes(trel) && !(test && trel === 'backend/mock.ts')) {
      wrong.push(`${rel} imports ${trel}: outside backend/, import the door (backend/index.ts), its types (api.ts) or limits.ts`);
    }
    if (!test && ORDER.indexOf(layer(trel)) > ORDER.indexOf(own)) wrong.push(`${rel} (${own}) imports ${trel} (${layer(trel)}): a layer above its own`);
  }
  if (!test) edges.set(file, targets);
}

// Circles: a module that reaches itself through what it imports.
const circles = new Set();
for (const start of edges.keys()) {
  const seen = new Set();
  const stack = [...(edges.get(start) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === start) {
      circles.add(relative(src, start));
      break;
    }
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(edges.get(next) ?? []));
  }
}
for (const c of circles) wrong.push(`${c} is in an import circle`);

const count = [...edges.values()].reduce((n, t) => n + t.length, 0);
if (count < 150) wrong.push(`only ${count} imports found: is the scan reading the sources?`);
if (wrong.length > 0) {
  console.error(`check-imports: imports that break the UI's layers:\n  ${wrong.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-imports: ${all.length} files, ${count} imports, every one downward, no circle`);
