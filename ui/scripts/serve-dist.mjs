// Serve ui/dist (or another build, e.g. dist-preview) on 127.0.0.1 with the app's
// Content-Security-Policy (read from tauri.conf.json), so a browser shows the same
// CSP violations the app would.
// Usage: node scripts/serve-dist.mjs [port] [folder under ui/, default dist]
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, '..', process.argv[3] ?? 'dist');
const conf = JSON.parse(await readFile(join(here, '..', '..', 'src-tauri', 'tauri.conf.json'), 'utf8'));
const csp = conf.app?.security?.csp ?? "default-src 'self'";
const port = Number(process.argv[2] ?? 8766);
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml', '.json': 'application/json' };

createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(dist, path.endsWith('/') ? path + 'index.html' : path);
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'content-security-policy': csp, 'cache-control': 'no-store' });
    res.end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
}).listen(port, '127.0.0.1', () => console.log(`serving ${dist} on http://127.0.0.1:${port} with the app's CSP`));
