import { describe, expect, it } from 'vitest';
import { hexProblem, keyProblem, keyTypeProblem, parseKeyType, partitionsProblem, topicNameProblem, typeNamesProblem } from './validate';

const ok = (key: string, kt: string) => expect(keyProblem(key, kt), `${JSON.stringify(key)} as ${kt}`).toBeNull();
const bad = (key: string, kt: string, re: RegExp) => expect(keyProblem(key, kt), `${JSON.stringify(key)} as ${kt}`).toMatch(re);

describe('key validation', () => {
  it('u8', () => {
    ok('0', 'u8');
    ok('255', 'u8');
    bad('256', 'u8', /too large.*255/);
  });
  it('u16', () => {
    ok('65535', 'u16');
    bad('65536', 'u16', /too large.*65535/);
  });
  it('u32', () => {
    ok('4294967295', 'u32');
    bad('4294967296', 'u32', /too large/);
  });
  it('u64 up to 2^64-1, exactly (no float rounding)', () => {
    ok('18446744073709551615', 'u64');
    bad('18446744073709551616', 'u64', /too large.*18446744073709551615/); // 2^64
    // 2^53 + 1 would round in a JS number; it is fine as a key.
    ok('9007199254740993', 'u64');
    ok('000000000000000000018446744073709551615', 'u64'); // leading zeros: same value
    bad('99999999999999999999999', 'u64', /too large/);
  });
  it('integer keys are digits only', () => {
    for (const k of ['-1', '1.5', ' 1', '1 ', '0x10', '1e3', '٣', '+1']) bad(k, 'u32', /digits 0-9 only/);
    bad('', 'u16', /enter a key/);
  });
  it('charN counts UTF-8 bytes, not characters', () => {
    ok('abcd', 'char4');
    bad('abcde', 'char4', /5 bytes.*at most 4/);
    ok('éé', 'char4'); // 4 bytes
    bad('ééé', 'char5', /6 bytes/);
    bad('日本', 'char5', /6 bytes/);
    ok('', 'char4');
    ok('12345', 'char12'); // digits are text for char topics
  });
  it('charN keys cannot end with NUL', () => {
    bad('ab\0', 'char8', /NUL/);
    ok('a\0b', 'char8');
  });
  it('an unknown key type is reported', () => {
    bad('1', 'u128', /not one the app knows/);
  });
});

describe('key types', () => {
  it('parses the engine’s set', () => {
    expect(parseKeyType('u8')).toMatchObject({ kind: 'int', max: 255n });
    expect(parseKeyType('u64')).toMatchObject({ kind: 'int', max: 18446744073709551615n });
    expect(parseKeyType('char1')).toEqual({ kind: 'char', width: 1 });
    expect(parseKeyType('char3257')).toEqual({ kind: 'char', width: 3257 });
    for (const bad of ['char0', 'char3258', 'char', 'char-1', 'char+3', 'U16', 'u128', ' u8', '']) expect(parseKeyType(bad), bad).toBeNull();
    expect(keyTypeProblem('char0')).toMatch(/1 to 3257/);
    expect(keyTypeProblem('u32')).toBeNull();
  });
});

describe('topic names', () => {
  it('accepts the allowed alphabet', () => {
    for (const n of ['events', 'a.b-c_D9', '...', 'x'.repeat(200), '-', '_']) expect(topicNameProblem(n), n).toBeNull();
  });
  it('rejects what the engine rejects, saying why', () => {
    expect(topicNameProblem('')).toMatch(/enter a name/);
    expect(topicNameProblem('.')).toMatch(/not a usable name/);
    expect(topicNameProblem('..')).toMatch(/not a usable name/);
    expect(topicNameProblem('a b')).toMatch(/a space \(character 2\)/);
    expect(topicNameProblem('a/b')).toMatch(/"\/"/);
    expect(topicNameProblem('a\\b')).toMatch(/not allowed/);
    expect(topicNameProblem('ünï')).toMatch(/"ü" \(character 1\)/);
    expect(topicNameProblem('--group--workers')).toMatch(/reserved for consumer groups/);
    expect(topicNameProblem('x'.repeat(201))).toMatch(/201 characters is too long/);
    expect(topicNameProblem('--group-x')).toBeNull();
  });
});

describe('other fields', () => {
  it('partitions 1-10000', () => {
    expect(partitionsProblem('1')).toBeNull();
    expect(partitionsProblem('10000')).toBeNull();
    expect(partitionsProblem('0')).toMatch(/1 to 10000/);
    expect(partitionsProblem('10001')).toMatch(/1 to 10000/);
    expect(partitionsProblem('2.5')).toMatch(/whole number/);
    expect(partitionsProblem('')).toMatch(/whole number/);
  });
  it('message type lists', () => {
    expect(typeNamesProblem('Order, Refund')).toBeNull();
    expect(typeNamesProblem('Order, Order')).toMatch(/twice/);
  });
  it('hex payloads', () => {
    expect(hexProblem('48 65 6c 6C 6f')).toBeNull();
    expect(hexProblem('abc')).toMatch(/odd number/);
    expect(hexProblem('zz')).toMatch(/only 0-9/);
  });
});
