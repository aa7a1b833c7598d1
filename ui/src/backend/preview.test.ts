import { describe, expect, it } from 'vitest';
import { payloadPreview } from '../shared/format';
import type { MessageRow } from './bindings';

const typed = (json: string, pretty: string | null): { row: 'message' } & MessageRow => ({
  row: 'message',
  partition: 0,
  offset: '0',
  key: '1',
  key_kind: 'int',
  timestamp: 0,
  kind: 'dataclass',
  text: null,
  hex: null,
  class: 'Event',
  type_id: 0,
  fields_json: json,
  fields_pretty: pretty,
  size: json.length,
  truncated: false,
});

describe('payload preview of typed messages', () => {
  it('shows characters, not \\u escapes, and keeps big integers exact', () => {
    const row = typed('{"t":"\\u00fcn","n":18446744073709551616}', '{\n  "t": "ün",\n  "n": 18446744073709551616\n}');
    expect(payloadPreview(row)).toBe('Event { "t": "ün", "n": 18446744073709551616 }');
  });
  it('falls back to the stored JSON when there is no pretty form', () => {
    expect(payloadPreview(typed('{"a":1}', null))).toBe('Event {"a":1}');
  });
});
