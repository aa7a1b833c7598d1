import { describe, expect, it } from 'vitest';
import { hasUnsafeIntegers, objectFields, prettyJson, readableJson, rowAsJson } from './json';
import type { Row } from '../backend';

const typed: Row = {
  row: 'message',
  partition: 3,
  offset: '9007199254740993',
  key: '18446744073709551615',
  key_kind: 'int',
  timestamp: 1795695210.4,
  kind: 'dataclass',
  text: null,
  hex: null,
  class: 'Order',
  type_id: 0,
  fields_json: '{"id":123456789012345678901234567890,"price":19.90,"n":NaN}',
  fields_pretty: null,
  size: 58,
  truncated: false,
};

describe('JSON as text', () => {
  it('pretty-prints without touching numbers', () => {
    expect(prettyJson('{"a":123456789012345678901234567890,"b":[1.50,-0,1e400],"c":{}}')).toBe(
      '{\n  "a": 123456789012345678901234567890,\n  "b": [\n    1.50,\n    -0,\n    1e400\n  ],\n  "c": {}\n}',
    );
    expect(prettyJson('not json')).toBeNull();
    expect(prettyJson('{"a":1,}')).toBeNull();
  });
  it('finds integers past 2^53', () => {
    expect(hasUnsafeIntegers('{"id":9007199254740991}')).toBe(false);
    expect(hasUnsafeIntegers('{"id":9007199254740992}')).toBe(true);
    expect(hasUnsafeIntegers('[1.5e300, "99999999999999999999"]')).toBe(false);
  });
  it('splits typed fields with their exact source text', () => {
    expect(objectFields(typed.fields_json!)).toEqual([
      { name: 'id', raw: '123456789012345678901234567890', text: '123456789012345678901234567890', kind: 'number' },
      { name: 'price', raw: '19.90', text: '19.90', kind: 'number' },
      { name: 'n', raw: 'NaN', text: 'NaN', kind: 'literal' },
    ]);
  });
  it('shows strings decoded (no \\u escapes of printable characters), numbers exact', () => {
    const src = '{"text":"\\u00fcn\\u00efc\\u00f6d\\u00e9","tags":["emoji \\ud83d\\ude80","tab\\tq\\"x"],"big":123456789012345678901234567890,"lone":"\\ud800"}';
    expect(readableJson(src)).toBe('{"text":"ünïcödé","tags":["emoji 🚀","tab\\tq\\"x"],"big":123456789012345678901234567890,"lone":"\\ud800"}');
    expect(objectFields(src)!.map((f) => f.text)).toEqual(['"ünïcödé"', '["emoji 🚀","tab\\tq\\"x"]', '123456789012345678901234567890', '"\\ud800"']);
    expect(readableJson('not json \\u00fc')).toBe('not json \\u00fc');
  });
  it('copy as JSON keeps offsets, u64 keys and big field integers exact', () => {
    const s = rowAsJson(typed);
    expect(s).toContain('"offset":9007199254740993');
    expect(s).toContain('"key":18446744073709551615');
    expect(s).toContain('"fields":{"id":123456789012345678901234567890,"price":19.90,"n":NaN}');
    // Had the numbers gone through JS, they would read differently:
    expect(s).not.toContain('9007199254740992');
    expect(s).not.toContain('18446744073709552000');
  });
  it('copy as JSON escapes text keys and payloads', () => {
    const s = rowAsJson({ ...typed, key: 'a"b', key_kind: 'str', kind: 'str', text: '<img src=x>\n"', class: null, fields_json: null });
    expect(JSON.parse(s)).toMatchObject({ key: 'a"b', text: '<img src=x>\n"', kind: 'str' });
  });
});
