import { describe, expect, test } from 'vitest';
import { decodeCursor, encodeCursor, type CursorScope } from '#domain/cursors';
import { ValidationFailed } from '#domain/errors';

const scope: CursorScope = {
  fingerprint: ['table', 'WS#a', 'PROJECT#', 'all'],
  keyNames: ['PK', 'SK'],
  partition: { name: 'PK', value: 'WS#a' },
  sortPrefix: { name: 'SK', prefix: 'PROJECT#' },
};
const key = { PK: 'WS#a', SK: 'PROJECT#b' };

describe('cursors', () => {
  test('round-trip the continuation key', () => {
    const cursor = encodeCursor(scope, key)!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(scope, cursor)).toEqual(key);
  });

  test('are null when nothing follows and absent when not given', () => {
    expect(encodeCursor(scope, undefined)).toBeNull();
    expect(decodeCursor(scope, undefined)).toBeUndefined();
  });

  test('reject a cursor of another query', () => {
    const other = encodeCursor({ ...scope, fingerprint: ['table', 'WS#a', 'PROJECT#', 'status'] }, key)!;
    expect(() => decodeCursor(scope, other)).toThrow(ValidationFailed);
  });

  test('reject garbage, foreign partitions, extra keys and keys outside the prefix', () => {
    const forge = (k: unknown, f?: string) =>
      Buffer.from(JSON.stringify({ f: f ?? JSON.parse(Buffer.from(encodeCursor(scope, key)!, 'base64url').toString()).f, k })).toString(
        'base64url',
      );
    for (const bad of [
      '',
      '!!',
      'eyJ9',
      forge({ PK: 'WS#other', SK: 'PROJECT#b' }),
      forge({ PK: 'WS#a', SK: 'PROJECT#b', X: '1' }),
      forge({ PK: 'WS#a', SK: 'LABEL#b' }),
      forge({ PK: 'WS#a', SK: 5 }),
      forge(null),
    ]) {
      expect(() => decodeCursor(scope, bad), bad).toThrow(ValidationFailed);
    }
  });
});
