// The detail pane's width: dragged by its left edge, remembered between runs.

const KEY = 'twainmq.detailWidth';
export const MIN_DETAIL = 300;
/** The width before anyone drags it: the table keeps most of the room; the hex view shows 8 bytes a line. */
export const DEFAULT_DETAIL = 420;

/** `w` kept between the minimum and what leaves the table 360px of a `total`-pixel body. */
export function clampDetail(w: number, total: number): number {
  const max = total > 0 ? Math.max(MIN_DETAIL, total - 360) : Number.POSITIVE_INFINITY;
  return Math.round(Math.min(max, Math.max(MIN_DETAIL, w)));
}

export function loadDetailWidth(): number {
  try {
    const v = Number(localStorage.getItem(KEY));
    return Number.isFinite(v) && v >= MIN_DETAIL ? v : DEFAULT_DETAIL;
  } catch {
    return DEFAULT_DETAIL;
  }
}

export function saveDetailWidth(w: number): void {
  try {
    localStorage.setItem(KEY, String(Math.round(w)));
  } catch {
    /* no storage: the width is kept for this run only */
  }
}
