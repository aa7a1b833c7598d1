import { tick } from 'svelte';
import { fireEvent, render } from '@testing-library/svelte';
import App from '../src/app/App.svelte';
import { app } from '../src/app/app.svelte';
import { prefs } from '../src/app/prefs.svelte';
import * as door from '../src/backend';
import { recording } from '../src/backend/mock';
import type { MockStore } from '../src/backend/mock';
import type { GroupDetail, MessageRow, Row, TopicDetail } from '../src/backend';

/** The recorded test backend behind the mocked backend module (see vi.mock in each test file). */
export const mock = (): MockStore => (door as unknown as { mockStore: MockStore }).mockStore;

export { recording };

/** What the real backend said of a topic, a group (the recorded answers the mock replays). */
export function recordedTopic(topic: string): TopicDetail {
  const d = recording.topics[topic]?.detail;
  if (d?.status !== 'ok') throw new Error(`no recorded description of ${topic}`);
  return d.data;
}

export function recordedGroup(group: string): GroupDetail {
  const d = recording.groups[group];
  if (d?.status !== 'ok') throw new Error(`no recorded description of ${group}`);
  return d.data;
}

/** The recorded rows of a partition. */
export function recordedRows(topic: string, partition: number): Row[] {
  const p = recording.topics[topic]?.partitions.find((x) => x.partition === partition);
  if (!p) throw new Error(`no recorded rows of ${topic} P${partition}`);
  return p.rows;
}

export function recordedMessage(topic: string, partition: number, offset: string): MessageRow {
  const r = recordedRows(topic, partition).find((x) => x.offset === offset);
  if (r?.row !== 'message') throw new Error(`no recorded message at ${topic} ${partition}:${offset}`);
  return r;
}

export async function describe_(topic: string) {
  const r = await door.backend.describeTopic(topic);
  if (r.status !== 'ok') throw new Error(r.error.message);
  return r.data;
}

/** Let promises, timers of 0 ms and Svelte updates run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setTimeout(r, 0));
    await tick();
  }
}

export async function until(cond: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
    await tick();
  }
}

export const rows = (root: ParentNode = document) => [...root.querySelectorAll<HTMLElement>('[data-testid=message-row]')];

/**
 * Put the app and the recorded backend back as a fresh launch finds them: no store open, the
 * welcome screen. Each test's render starts the app again, so listeners of earlier tests are
 * forgotten (else a drop would open the folder once per earlier test, late).
 */
export function freshLaunch(): void {
  prefs.setLaunch('welcome');
  mock().forgetListeners();
  mock().seed();
  mock().open = false;
  mock().launch = null;
  mock().watching = true;
  app.info = null;
  app.topic = null;
  app.group = null;
  app.dialog = null;
  app.openError = null;
  app.link = {};
  mock().calls = [];
}

/** Start the app and open the demo store from its welcome screen. */
export async function openDemo() {
  const r = render(App);
  await until(() => !!document.querySelector('[data-testid=welcome]'), 'welcome');
  await fireEvent.click(r.getByTestId('open-demo'));
  await until(() => !!document.querySelector('[data-testid=topic-list]'), 'topic list');
  return r;
}

/** Node's process, as far as the tests use it (the UI's own types know no Node). */
declare const process: { cpuUsage(): { user: number; system: number } };

/** This test process's CPU time (user and system), in milliseconds: what work costs, whatever
 * else the machine is doing (wall time on a loaded CI machine says more about the machine). */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
