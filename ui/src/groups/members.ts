// Words for a member's inferred status (the member list, its tooltips).

import type { MemberDto, MemberStatusDto } from '../backend';

/** The status in a few words. */
export function statusLabel(s: MemberStatusDto): string {
  return s === 'live' ? 'Live: it wrote a record lately' : s === 'stale' ? 'Stale: silent for a few windows' : 'Gone';
}

/** A member's whole row as a tooltip: status, reason, and whether it follows a reset. */
export function memberLine(m: MemberDto): string {
  const proto = m.follows_resets ? 'a TwainMQ member: it moves to a reset' : '0.2.3 protocol: its next commit overwrites a reset';
  return `Member ${m.id} is ${m.status} (${m.status_reason}); ${proto}`;
}

/** Members by status, for counts: live, stale, gone (the group's current members only). */
export function countByStatus(members: MemberDto[]): Record<MemberStatusDto, number> {
  const out: Record<MemberStatusDto, number> = { live: 0, stale: 0, gone: 0 };
  for (const m of members) out[m.status]++;
  return out;
}
