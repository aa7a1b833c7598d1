// What an import of a JSON lines file into a cluster topic will do, in words, from the
// backend's check of the file: said before anything is written.

import type { ClusterImportCheck } from '../backend';
import { counted, groupDigits } from '../shared/format';

/** Where an import of the same file into the same topic stopped. */
export type ResumeAt = { line: string; landed_after: string[] };

/** Why the file's own partitions cannot all be kept (null: they can). */
export function keepPartitionsProblem(c: ClusterImportCheck): string | null {
  if (c.with_partition === '0') return 'no line of the file names a partition';
  if (c.highest_partition !== null && c.highest_partition >= c.partitions) {
    return `the file names partition ${c.highest_partition}, and the topic has ${counted(c.partitions, 'partition')} (0 to ${c.partitions - 1})`;
  }
  if (c.with_partition !== c.records) return `${groupDigits(BigInt(c.records) - BigInt(c.with_partition))} of its lines name no partition: those go by key`;
  return null;
}

/** Whether the file's partitions cannot be kept at all. */
export function keepPartitionsBlocked(c: ClusterImportCheck): boolean {
  return c.with_partition === '0' || (c.highest_partition !== null && c.highest_partition >= c.partitions);
}

/** The part of the file a resumed import passes over, in words. */
export function resumeText(r: ResumeAt): string {
  const after = r.landed_after.length ? ` and ${counted(r.landed_after.length, 'line')} after it` : '';
  return `the lines before line ${groupDigits(r.line)}${after} are in the topic already (the import that stopped wrote them) and are passed over: nothing is written twice`;
}

/** What pressing Import will write, in one sentence. */
export function importPlanText(c: ClusterImportCheck, topic: string, resume: ResumeAt | null): string {
  const from = resume ? `; ${resumeText(resume)}` : '';
  if (c.first_bad) {
    return `Line ${groupDigits(c.first_bad.line)} is bad (${c.first_bad.problem}): importing writes the records before it to ${topic} and stops there${from}. Fix the line, then import again: it goes on from there.`;
  }
  return resume ? `Importing writes the rest of the file to ${topic}${from}.` : `Importing writes ${counted(c.records, 'record')} to ${topic}.`;
}
