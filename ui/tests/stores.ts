// A store's topics and groups as the sidebar, the Partitions tab and the search inputs' tests
// see them: one topic, or a big store of thousands.
import type { GroupSummary, TopicSummary } from '../src/backend';

export const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

export function topic(i: number, over: Partial<TopicSummary> = {}): TopicSummary {
  return {
    name: `topic-${String(i).padStart(4, '0')}`,
    key_type: 'u32',
    partitions: 4,
    message_types: [],
    max_message_bytes: null,
    messages: String(i * 10),
    bytes: String(i * 1000),
    last_write: NOW / 1000,
    last_message: NOW / 1000 - 3600 * 5,
    error: null,
    ...over,
  };
}

export function bigStore(n = 5000): { topics: TopicSummary[]; groups: GroupSummary[] } {
  const topics = Array.from({ length: n }, (_, i) => topic(i));
  const groups: GroupSummary[] = Array.from({ length: 40 }, (_, i) => ({
    name: `group-${i}`,
    topic: topics[(i * 37) % n].name,
    members: 1,
    live_members: 1,
    state: 'stable',
    lag: '0',
  }));
  return { topics, groups };
}

