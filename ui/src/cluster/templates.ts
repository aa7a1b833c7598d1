// Saved produce templates: a draft kept under a name (topic, partition, key, value, headers,
// time mode) in the webview's storage, for every cluster window of this app; a name saved again
// replaces its draft. What storage cannot hold (quota, private mode) is said, never lost silently.

import type { ProduceDraft } from './produce';

export const TEMPLATES_KEY = 'twainmq.produceTemplates';
/** The most templates kept (the oldest saved go first). */
export const MAX_TEMPLATES = 50;

export type Template = { name: string; draft: ProduceDraft; savedAt: number };

/** The templates saved, newest first; none when storage holds nothing readable. */
export function loadTemplates(storage: Storage = localStorage): Template[] {
  try {
    const v: unknown = JSON.parse(storage.getItem(TEMPLATES_KEY) ?? '[]');
    if (!Array.isArray(v)) return [];
    return v.filter((t): t is Template => typeof t?.name === 'string' && typeof t?.draft?.topic === 'string' && Array.isArray(t?.draft?.headers));
  } catch {
    return [];
  }
}

/** Save `draft` as `name` (replacing one of that name); the list now, or the reason it could not be saved. */
export function saveTemplate(name: string, draft: ProduceDraft, now: number, storage: Storage = localStorage): Template[] | string {
  const n = name.trim();
  if (n === '') return 'name the template';
  // keptMs is a republished record's own time: a template is for new records.
  const copy = JSON.parse(JSON.stringify(draft)) as ProduceDraft;
  const kept: ProduceDraft = { ...copy, keptMs: null, timeMode: copy.timeMode === 'keep' ? 'now' : copy.timeMode };
  const list = [{ name: n, draft: kept, savedAt: now }, ...loadTemplates(storage).filter((t) => t.name !== n)].slice(0, MAX_TEMPLATES);
  try {
    storage.setItem(TEMPLATES_KEY, JSON.stringify(list));
  } catch (e) {
    return `the template could not be saved: ${e instanceof Error ? e.message : String(e)}`;
  }
  return list;
}

/** Forget the template `name`; the list now. */
export function deleteTemplate(name: string, storage: Storage = localStorage): Template[] {
  const list = loadTemplates(storage).filter((t) => t.name !== name);
  try {
    storage.setItem(TEMPLATES_KEY, JSON.stringify(list));
  } catch {
    // Nothing lost: the list shown is what storage still holds.
    return loadTemplates(storage);
  }
  return list;
}
