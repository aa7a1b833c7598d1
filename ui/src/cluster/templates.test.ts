import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import type { ClusterInfo, Page } from '../backend';

// The cluster's commands answer what each test sets (testBackend.ts).
vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule));
import { answers, calls, ok, resetBackend } from './testBackend';

import { emptyDraft } from './produce';
import { deleteTemplate, loadTemplates, MAX_TEMPLATES, saveTemplate, TEMPLATES_KEY } from './templates';
import ClusterApp from './ClusterApp.svelte';
import { clusterView } from './clusterView.svelte';
import { produceForm } from './clusterProduce.svelte';

const settle = () => new Promise((r) => setTimeout(r, 0));
beforeEach(() => {
  resetBackend();
  localStorage.clear();
  clusterView.topic = null;
  clusterView.info = null;
  produceForm.open = false;
});
afterEach(() => cleanup());

describe('produce templates', () => {
  it('are saved by name, newest first, a name saved again replaced, at most 50', () => {
    const d = { ...emptyDraft('orders'), key: 'k1', value: '{"n":1}', valueMode: 'json' as const, headers: [{ name: 'trace', mode: 'text' as const, text: 't' }] };
    expect(saveTemplate(' ', d, 1)).toBe('name the template');
    saveTemplate('order', d, 1);
    saveTemplate('other', { ...d, topic: 'audit' }, 2);
    const again = saveTemplate('order', { ...d, key: 'k2', timeMode: 'keep', keptMs: 5 }, 3);
    expect(Array.isArray(again) && again.map((t) => [t.name, t.draft.key, t.draft.timeMode, t.draft.keptMs])).toEqual([
      ['order', 'k2', 'now', null],
      ['other', 'k1', 'now', null],
    ]);
    for (let i = 0; i < MAX_TEMPLATES + 5; i++) saveTemplate(`t${i}`, d, 10 + i);
    expect(loadTemplates().length).toBe(MAX_TEMPLATES);
    expect(deleteTemplate('t54').some((t) => t.name === 't54')).toBe(false);
    localStorage.setItem(TEMPLATES_KEY, 'not json');
    expect(loadTemplates()).toEqual([]);
  });

  it('fill the produce dialog, saved from it and kept for the next one', async () => {
    answers.clusterInfo = ok<ClusterInfo>({ name: 'local', bootstrap: 'b:9092', cluster_id: 'c1', read_only: false, topics: [{ name: 'orders', messages: '0', partitions: [{ partition: 0, low: '0', high: '0', messages: '0' }] }, { name: 'audit', messages: '0', partitions: [{ partition: 0, low: '0', high: '0', messages: '0' }] }] });
    answers.readPage = ok<Page>({ partition: 0, rows: [], next: '0', end: '0', incarnation: null });
    answers.clusterProduce = ok({ topic: 'audit', partition: 0, offset: '0' });
    const r = render(ClusterApp);
    await settle();
    await fireEvent.click(r.getByTestId('cluster-produce'));
    await fireEvent.change(r.getByTestId('produce-topic'), { target: { value: 'audit' } });
    await fireEvent.input(r.getByTestId('produce-key'), { target: { value: 'user-9' } });
    await fireEvent.input(r.getByTestId('produce-value'), { target: { value: 'hello' } });
    await fireEvent.input(r.getByTestId('produce-template-name'), { target: { value: 'greeting' } });
    await fireEvent.click(r.getByTestId('produce-template-save'));
    expect(r.getByTestId('produce-template-note').textContent).toBe('Saved as “greeting”.');
    produceForm.close();
    await settle();
    await fireEvent.click(r.getByTestId('cluster-produce'));
    await fireEvent.change(r.getByTestId('produce-template-pick'), { target: { value: 'greeting' } });
    expect((r.getByTestId('produce-key') as HTMLInputElement).value).toBe('user-9');
    expect((r.getByTestId('produce-topic') as HTMLSelectElement).value).toBe('audit');
    await fireEvent.click(r.getByTestId('produce-send'));
    await settle();
    const sent = calls.find((c) => c[0] === 'clusterProduce')?.[1] as { topic: string; value: { text: string } };
    expect(sent.topic).toBe('audit');
  });
});
