// The rows of a long list worth rendering: those on screen and a few either side.
// Lists here scroll natively (every row has one height), so only the window of
// rows under the viewport is in the DOM however long the list is.

/** Rows assumed on screen before the viewport has been measured (and in tests, which have no layout). */
export const UNMEASURED_HEIGHT = 1200;

export type RowWindow = { start: number; end: number };

/** Rows start..end (end exclusive) of `total` to render for a viewport scrolled to `scrollTop`. */
export function rowWindow(scrollTop: number, height: number, rowHeight: number, total: number, overscan = 8): RowWindow {
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const h = height > 0 ? height : UNMEASURED_HEIGHT;
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const start = Math.max(0, Math.min(total - 1, first) - overscan);
  const end = Math.min(total, first + Math.ceil(h / rowHeight) + 1 + overscan);
  return { start, end: Math.max(start, end) };
}

/** The scrollTop that brings row `i` into view (unchanged when it is already wholly visible). */
export function scrollToReveal(i: number, scrollTop: number, height: number, rowHeight: number): number {
  const top = i * rowHeight;
  if (top < scrollTop) return top;
  if (height > 0 && top + rowHeight > scrollTop + height) return top + rowHeight - height;
  return scrollTop;
}
