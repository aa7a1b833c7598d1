// The retention form's numbers: days and a size with a unit, to the wire's
// decimal strings (BigInt, never a lossy JS number).

import type { RetentionDto } from '../backend';

export const UNITS = { B: 1n, KB: 1024n, MB: 1024n ** 2n, GB: 1024n ** 3n, TB: 1024n ** 4n } as const;
export type Unit = keyof typeof UNITS;

export type RetentionForm = { days: string; size: string; unit: Unit };

/** The setting the form says, null for none, or what is wrong with it. */
export function parseRetention(f: RetentionForm): { ok: true; value: RetentionDto | null } | { ok: false; problem: string } {
  const days = f.days.trim();
  const size = f.size.trim();
  if (days !== '' && !/^\d+$/.test(days)) return { ok: false, problem: 'days is a whole number, 1 or more' };
  if (days !== '' && BigInt(days) === 0n) return { ok: false, problem: 'keep at least 1 day (or leave days empty)' };
  if (size !== '' && !/^\d+$/.test(size)) return { ok: false, problem: 'the size is a whole number, 1 or more' };
  if (size !== '' && BigInt(size) === 0n) return { ok: false, problem: 'keep at least 1 byte a partition (or leave the size empty)' };
  const bytes = size === '' ? null : BigInt(size) * UNITS[f.unit];
  if (bytes !== null && bytes > 18446744073709551615n) return { ok: false, problem: 'that size is too large' };
  if (days === '' && bytes === null) return { ok: true, value: null };
  return { ok: true, value: { days: days === '' ? null : days, bytes_per_partition: bytes === null ? null : bytes.toString() } };
}

/** The form for a saved setting: the size in the largest unit it is a whole number of. */
export function formOf(r: RetentionDto | null): RetentionForm {
  if (!r) return { days: '', size: '', unit: 'MB' };
  let unit: Unit = 'B';
  let size = '';
  if (r.bytes_per_partition !== null) {
    const b = BigInt(r.bytes_per_partition);
    for (const u of ['TB', 'GB', 'MB', 'KB', 'B'] as Unit[]) {
      if (b % UNITS[u] === 0n) {
        unit = u;
        size = (b / UNITS[u]).toString();
        break;
      }
    }
  } else unit = 'MB';
  return { days: r.days ?? '', size, unit };
}

/** "7 days and 512 MB a partition". */
export function retentionText(r: RetentionDto | null): string {
  if (!r) return 'none: messages are kept until deleted';
  const f = formOf(r);
  const parts = [];
  if (r.days !== null) parts.push(`${r.days} day${r.days === '1' ? '' : 's'}`);
  if (r.bytes_per_partition !== null) parts.push(`${f.size} ${f.unit} a partition`);
  return parts.join(' and ');
}
