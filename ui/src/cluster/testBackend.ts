// The cluster tests' backend: each command answers what the test set in `answers` (a value,
// or a function of the call's arguments), every call recorded in `calls`. Used as
// `vi.mock('../backend', () => import('./testBackend').then((m) => m.backendModule))`.

/** Every call, in order: the command's name, then its arguments. */
export const calls: [string, ...unknown[]][] = [];
/** What each command answers, by name. */
export const answers: Record<string, unknown> = {};
/** A command's success. */
export const ok = <T>(data: T) => ({ status: 'ok' as const, data });

function answer(name: string, ...args: unknown[]) {
  calls.push([name, ...args]);
  const a = answers[name];
  return Promise.resolve(typeof a === 'function' ? (a as (...x: unknown[]) => unknown)(...args) : (a ?? { status: 'error', error: { code: 'preview', message: `no answer for ${name}` } }));
}

/** Forget the calls and answers of the test before. */
export function resetBackend(): void {
  calls.length = 0;
  for (const k of Object.keys(answers)) delete answers[k];
}

/** The module that stands in for `../backend`. */
export const backendModule = {
  backendKind: 'mock',
  backend: new Proxy({}, { get: (_t, name: string) => (name === 'onMenu' ? () => Promise.resolve(() => {}) : (...a: unknown[]) => answer(name, ...a)) }),
};
