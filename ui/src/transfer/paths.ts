// Paths as the dialogs show and edit them (strings; the backend checks them).

/** `path` with its extension `from` replaced by `to` (`hits.jsonl` → `hits.csv`); any other path as it is. */
export function swapExtension(path: string, from: string, to: string): string {
  const suffix = `.${from}`;
  if (from === to || !path.toLowerCase().endsWith(suffix)) return path;
  const stem = path.slice(0, path.length - suffix.length);
  // A bare ".jsonl" (no name before the dot) or a folder's trailing part is not renamed.
  if (stem === '' || /[\\/]$/.test(stem)) return path;
  return `${stem}.${to}`;
}

/** The last part of a path (after / or \). */
export function fileName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}
