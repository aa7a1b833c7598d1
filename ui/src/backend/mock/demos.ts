// The balancing demo in the mock: recorded scenes, a step a start, kill or stop of a
// demo member; the group shows the state recorded after each step.

import type { DemoMember, Handle, Result } from '../api';
import type { DemoRun, DemoState, MockState } from './state';
import { copy, failed, ok, preview, recording } from './recording';


function scene(store: MockState, group: string): DemoRun | null {
  let run = store.demoRuns.get(group);
  if (!run) {
    const scene = recording.demos[group];
    if (!scene) return null;
    run = { scene, next: 0 };
    store.demoRuns.set(group, run);
  }
  return run;
}

function scenes(store: MockState): string {
  return Object.values(recording.demos)
    .map((s) => `${s.group} on ${s.topic}: ${s.steps.map((x) => `${x.do} ${x.handle}`).join(', ')}`)
    .join('; ');
}

/** As the backend (members.rs check_group_free): members this app did not start are in the group, unconfirmed. */
export function refuseBusyGroup(store: MockState, group: string, joinLive: boolean): Result<Handle> | null {
  if (joinLive) return null;
  // Every member this app started is ours, killed or stopped too.
  const ours = new Set([...store.demos.values()].filter((d) => d.group === group).map((d) => d.member_id));
  const others = (store.groups.get(group)?.detail.members ?? []).filter((m) => m.status !== 'gone' && !ours.has(m.id)).map((m) => `m${m.id}`);
  if (others.length === 0) return null;
  return failed({
    code: 'group_in_use',
    message: `group ${group} has ${others.length} member${others.length === 1 ? '' : 's'} this app did not start (${others.join(', ')}): a demo member would join it, take some of their partitions at the next round and commit what it reads, so they would never process those messages. Try the demo in a group of its own, or join anyway`,
  });
}

export function startDemo(store: MockState, topic: string, group: string, windowMs: number, rate: number): Result<Handle> {
  const run = scene(store, group);
  const step = run?.scene.steps[run.next];
  if (!run || run.scene.topic !== topic || step?.do !== 'start') return preview(`starting a member of ${group} on ${topic} (recorded: ${scenes(store)})`);
  run.next++;
  const d: DemoState = {
    handle: step.handle,
    member_id: 0,
    topic,
    group,
    window_ms: windowMs,
    rate,
    status: 'joining',
    problem: null,
    partitions: [],
    consumed: '0',
    per_second: [],
    timers: [],
  };
  store.demos.set(d.handle, d);
  store.later(30, () => {
    if (d.status !== 'joining') return;
    d.member_id = step.member_id ?? 0;
    d.status = 'running';
    store.setGroup(group, step.detail);
    // A steady `rate` a second (it is a demo of the map, not of throughput).
    d.timers.push(
      setInterval(() => {
        if (d.status !== 'running') return;
        d.per_second = [...d.per_second, rate].slice(-60);
        d.consumed = (BigInt(d.consumed) + BigInt(rate)).toString();
      }, 1000),
    );
  });
  return ok(d.handle);
}

export function stopDemo(store: MockState, handle: Handle, kill: boolean): Result<null> {
  const d = store.demos.get(handle);
  if (!d) return preview(`a demo member ${handle}`);
  if (d.status !== 'running' && d.status !== 'joining') return ok(null);
  const run = store.demoRuns.get(d.group);
  const step = run?.scene.steps[run.next];
  if (!run || step?.handle !== handle || step.do !== (kill ? 'kill' : 'stop')) {
    return preview(`${kill ? 'killing' : 'stopping'} member ${handle} now (recorded: ${scenes(store)})`);
  }
  run.next++;
  for (const t of d.timers) clearInterval(t);
  d.timers = [];
  d.status = kill ? 'killed' : 'stopped';
  store.setGroup(d.group, step.detail);
  // After a kill, the survivor's next round (about two windows later).
  const then = step.then;
  if (then) store.later(Math.max(300, 2 * run.scene.window_ms), () => store.setGroup(d.group, then));
  return ok(null);
}

export function listDemos(store: MockState): DemoMember[] {
  return [...store.demos.values()].map(({ timers: _, ...d }) => {
    void _;
    const held = store.groups.get(d.group)?.detail.members.find((m) => m.id === d.member_id)?.partitions ?? [];
    return { ...copy(d), partitions: d.status === 'running' ? [...held] : [] };
  });
}
