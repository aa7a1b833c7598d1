import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';
import { createRawSnippet } from 'svelte';
import { TimelineWindow, type TimelineFetch } from './timeline';
import MessagesFooter from './MessagesFooter.svelte';
import type { MessageRow, TimelinePageDto } from '../backend/api';

afterEach(() => cleanup());

/** A topic of one partition: 10 messages, then 2 damaged lines at the end (a torn write, garbage). */
function page(rows: number, total: number): TimelinePageDto {
  const r = Array.from({ length: rows }, (_, i) => ({ partition: 0, offset: String(i) }) as unknown as MessageRow);
  return { partitions: [0], rows: r, begin: ['0'], end: [String(rows)], first: ['0'], base: '0', total: String(total), incarnation: null } as unknown as TimelinePageDto;
}

describe('a timeline ending in damaged lines', () => {
  it('counts them apart from its rows, so the rows and the damaged lines add up to the topic count', async () => {
    const fetch: TimelineFetch = {
      before: async () => ({ status: 'ok', data: page(10, 12) }),
      after: async () => ({ status: 'ok', data: page(10, 12) }),
    };
    const tl = new TimelineWindow(fetch, () => {});
    await tl.anchorAt('end');
    expect(tl.count).toBe(10n);
    expect(tl.damagedAtEnd).toBe(2n);
    expect(tl.count + tl.damagedAtEnd).toBe(tl.total);
  });

  it('the footer names them beside the rows it shows', () => {
    const transfer = createRawSnippet(() => ({ render: () => '<span></span>' }));
    const base = {
      follow: false, newCount: 0n, behindSecs: 0, behindRows: 0n, picked: 0, timeline: true, partition: null, partitions: 1,
      first: 1n, last: 10n, searching: false, running: false, found: 0n, ontogglefollow: () => {}, ontoend: () => {}, onclearpicks: () => {}, transfer,
    };
    const { getByTestId, queryByTestId, unmount } = render(MessagesFooter, { ...base, total: 10n, damagedAtEnd: 2n });
    expect(getByTestId('row-range').textContent).toMatch(/1–10 of 10 on the timeline/);
    expect(getByTestId('damaged-at-end').textContent).toMatch(/\+ 2 damaged lines at the end/);
    unmount();
    render(MessagesFooter, { ...base, total: 12n, damagedAtEnd: 0n });
    expect(queryByTestId('damaged-at-end')).toBeNull();
  });
});
