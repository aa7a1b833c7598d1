// The Messages tab's own keys (the menu's accelerators are app/actions.svelte.ts's): / search,
// G go to offset, F follow, J/K and the arrows, pages, Home/End, Enter opens the detail, Esc
// closes it or clears the search. Not while a text field has the focus (Esc leaves it). And
// what the menu bar's items do on the tab's topic.

import { backend } from '../backend';
import type { MessageRef, Row } from '../backend';
import type { TopicHandlers } from '../app/actions.svelte';
import { copyText } from '../shared/clipboard';
import { payloadAsText, rowAsJson } from '../shared/json';

/** What the keys do in the tab. */
export type KeyHandlers = {
  /** A search is running (Esc cancels it, even from the search box). */
  running(): boolean;
  cancelSearch(): void;
  focusSearch(): void;
  focusOffset(): void;
  toggleFollow(): void;
  /** Move the selection by `rows` (a page: `'page'`, with its sign). */
  move(rows: bigint | 'page-down' | 'page-up'): void;
  toStart(): void;
  toEnd(): void;
  /** Open the selected row's detail; false when none is selected. */
  openDetail(): boolean;
  /** Esc outside text fields: close the detail, else clear the search. */
  escape(): void;
};

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/** Handle a key press in the tab (the caller checks it is the tab's to take). */
export function onMessagesKey(e: KeyboardEvent, h: KeyHandlers): void {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'Escape' && h.running()) {
    e.preventDefault();
    h.cancelSearch();
    return;
  }
  if (typing(e.target)) {
    if (e.key === 'Escape') (e.target as HTMLElement).blur();
    return;
  }
  const onButton = (e.target as HTMLElement | null)?.tagName === 'BUTTON';
  const take = (f: () => void) => {
    e.preventDefault();
    f();
  };
  switch (e.key) {
    case '/':
      return take(h.focusSearch);
    case 'g':
    case 'G':
      return take(h.focusOffset);
    case 'f':
    case 'F':
      return take(h.toggleFollow);
    case 'j':
    case 'ArrowDown':
      return take(() => h.move(1n));
    case 'k':
    case 'ArrowUp':
      return take(() => h.move(-1n));
    case 'PageDown':
      return take(() => h.move('page-down'));
    case 'PageUp':
      return take(() => h.move('page-up'));
    case 'Home':
      return take(h.toStart);
    case 'End':
      return take(h.toEnd);
    case 'Enter':
      if (onButton) return;
      if (h.openDetail()) e.preventDefault();
      return;
    case 'Escape':
      return h.escape();
  }
}

/** The menu bar's actions on the tab's topic (app/actions.svelte.ts runs them), over `row`, the selected row. */
export function menuHandlers(h: {
  focusSearch(): void;
  focusOffset(): void;
  focusTime(): void;
  toggleFollow(): void;
  toggleDetail(): void;
  row(): Row | undefined;
  /** The messages Copy Raw Line takes: the rows picked, else the selected one. */
  lines(): MessageRef[];
  topic(): string;
  exportSelection(): void;
}): TopicHandlers {
  return {
    find: h.focusSearch,
    jumpOffset: h.focusOffset,
    jumpTime: h.focusTime,
    toggleFollow: h.toggleFollow,
    toggleDetail: h.toggleDetail,
    copyMessage: async () => {
      const r = h.row();
      const text = r ? payloadAsText(r) : null;
      return text !== null && (await copyText(text));
    },
    copyJson: async () => {
      const r = h.row();
      return !!r && (await copyText(rowAsJson(r)));
    },
    copyRawLine: async () => {
      const refs = h.lines();
      if (refs.length === 0) return 0;
      const r = await backend.rawLines(h.topic(), refs);
      if (r.status === 'error' || r.data.length === 0) return 0;
      return (await copyText(r.data.map((l) => l.raw).join('\n'))) ? r.data.length : 0;
    },
    exportSelection: h.exportSelection,
  };
}
