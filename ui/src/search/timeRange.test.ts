import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render } from '@testing-library/svelte';
import TimeRange from './TimeRange.svelte';
import { presetRange, readRange, rfc3339 } from './timeRange';

afterEach(() => cleanup());

/** 2026-12-01 10:30:00 UTC, a fixed clock. */
const NOW = Date.UTC(2026, 11, 1, 10, 30, 0);
const at = (s: string) => Date.parse(s) / 1000;

describe('time range presets, with a fixed clock', () => {
  it('are the last 15 min, hour and 7 days, today and yesterday by the calendar', () => {
    expect(presetRange('15m', NOW, 'utc')).toEqual({ from: at('2026-12-01T10:15:00Z'), to: null });
    expect(presetRange('1h', NOW, 'utc')).toEqual({ from: at('2026-12-01T09:30:00Z'), to: null });
    expect(presetRange('7d', NOW, 'utc')).toEqual({ from: at('2026-11-24T10:30:00Z'), to: null });
    expect(presetRange('today', NOW, 'utc')).toEqual({ from: at('2026-12-01T00:00:00Z'), to: null });
    const y = presetRange('yesterday', NOW, 'utc');
    expect(y.from).toBe(at('2026-11-30T00:00:00Z'));
    expect(y.to! - at('2026-12-01T00:00:00Z')).toBeCloseTo(0, 5);
    expect(y.to!).toBeLessThan(at('2026-12-01T00:00:00Z'));
    expect(presetRange('all', NOW, 'utc')).toEqual({ from: null, to: null });
  });

  it('reads and writes RFC 3339, and says which side is wrong', () => {
    expect(rfc3339(at('2026-11-30T08:00:00Z'), 'utc')).toBe('2026-11-30T08:00:00Z');
    expect(readRange('2026-11-30T08:00:00Z', '', 'utc')).toEqual({ range: { from: at('2026-11-30T08:00:00Z'), to: null } });
    expect(readRange('2026-11-30 08:00', '2026-11-30T09:00:00+01:00', 'utc')).toEqual({ range: { from: at('2026-11-30T08:00:00Z'), to: at('2026-11-30T08:00:00Z') } });
    expect(readRange('yesterday', '', 'utc')).toEqual({ error: expect.stringMatching(/^“from” is not a time/) });
    expect(readRange('2026-11-30T09:00:00Z', '2026-11-30T08:00:00Z', 'utc')).toEqual({ error: expect.stringMatching(/“to” .* is before “from”/) });
    // Local time round-trips whatever the machine's zone.
    const t = at('2026-07-01T12:34:56Z');
    expect(readRange(rfc3339(t, 'local'), '', 'local')).toEqual({ range: { from: t, to: null } });
  });

  it('the control fills the inputs from a preset and applies typed times', async () => {
    const { getByTestId, component, queryByTestId } = render(TimeRange, { tz: 'utc', now: () => NOW });
    await fireEvent.change(getByTestId('range-preset'), { target: { value: '1h' } });
    expect((getByTestId('range-from') as HTMLInputElement).value).toBe('2026-12-01T09:30:00Z');
    expect((getByTestId('range-to') as HTMLInputElement).value).toBe('');
    void component;
    await fireEvent.input(getByTestId('range-to'), { target: { value: 'soon' } });
    expect((getByTestId('range-preset') as HTMLSelectElement).value).toBe('custom');
    await fireEvent.click(getByTestId('range-apply'));
    expect(getByTestId('range-error').textContent).toMatch(/“to” is not a time/);
    await fireEvent.input(getByTestId('range-to'), { target: { value: '2026-12-01T10:00:00Z' } });
    await fireEvent.click(getByTestId('range-apply'));
    expect(queryByTestId('range-error')).toBeNull();
    await fireEvent.click(getByTestId('range-clear'));
    expect((getByTestId('range-from') as HTMLInputElement).value).toBe('');
    expect((getByTestId('range-preset') as HTMLSelectElement).value).toBe('all');
  });
});
