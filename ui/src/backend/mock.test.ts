// The test backend replays the real backend's answers; where it works something
// out itself (cutting pages, summing what it shows), it must agree with the
// engine's answers recorded beside them.
import { describe, expect, it } from 'vitest';
import { MockStore, recording } from './mock';

describe('the recorded test backend', () => {
  it('cuts pages from recorded rows exactly as the engine cut the recorded ones', async () => {
    const b = new MockStore({ open: true }).backend();
    expect(recording.page_checks.length).toBeGreaterThanOrEqual(5);
    for (const c of recording.page_checks) {
      expect(await b.readPage(c.topic, c.partition, c.from, c.limit), `${c.topic} P${c.partition} from ${c.from} limit ${c.limit}`).toEqual(c.answer);
    }
  });

  it('shows the store summary the engine gave, and the groups it described', async () => {
    const store = new MockStore({ open: true, watching: false });
    const t = Date.now();
    store.clock = () => t; // the groups' clock stands still: `now` as recorded
    store.seed();
    const b = store.backend();
    expect(recording.info.status).toBe('ok');
    const info = await b.storeInfo();
    expect(info).toEqual(recording.info);
    for (const [name, d] of Object.entries(recording.groups)) expect(await b.describeGroup(name, null)).toEqual(d);
  });

  it('answers time lookups at the sampled times with the engine’s answers', async () => {
    const b = new MockStore({ open: true }).backend();
    for (const [name, t] of Object.entries(recording.topics)) {
      for (const [p, at, offset] of t.times) expect(await b.offsetAtTime(name, p, at), `${name} P${p} @${at}`).toEqual({ status: 'ok', data: offset });
    }
  });

  it('replays only what was recorded, and says so for the rest', async () => {
    const store = new MockStore({ open: true });
    const b = store.backend();
    const r = await b.produce('chat', { as: 'text', text: 'nobody' }, { kind: 'text', body: 'not recorded', class: null, file: null });
    expect(r.status === 'error' && r.error.code).toBe('preview');
    expect(store.marker).toBe('__TWAINMQ_TEST_BACKEND__');
    store.open = false;
    expect(await b.describeTopic('chat')).toEqual(recording.no_store);
  });
});
