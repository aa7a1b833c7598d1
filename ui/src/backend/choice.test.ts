// The door (index.ts) itself (the other suites replace it with vi.mock): which backend a
// page gets, and that `?mock` loads the recorded one on demand.
import { afterEach, describe, expect, it, vi } from 'vitest';

async function freshBackend(search: string) {
  window.history.replaceState(null, '', `/${search}`);
  vi.resetModules();
  return import('./index');
}

afterEach(() => window.history.replaceState(null, '', '/'));

describe('the backend a page gets', () => {
  it('is none in a plain browser: calls answer no_backend', async () => {
    const b = await freshBackend('');
    expect(b.backendKind).toBe('none');
    const r = await b.backend.storeInfo();
    expect(r.status === 'error' && r.error.code).toBe('no_backend');
    expect(await b.backend.recentStores()).toEqual({ status: 'ok', data: [] });
  });

  it('is the recorded store with ?mock (outside production builds), loaded when first called', async () => {
    const b = await freshBackend('?mock=open&latency=0');
    expect(b.backendKind).toBe('mock');
    const r = await b.backend.storeInfo();
    expect(r.status).toBe('ok');
    if (r.status !== 'ok') return;
    expect(r.data.root).toBe('/home/you/twainmq/demo-store');
    expect(r.data.topics.map((t) => t.name)).toContain('orders');
    const page = await b.backend.readPage('orders', 1, '7', 1);
    expect(page.status === 'ok' && page.data.rows[0].row).toBe('damaged');
  });
});
