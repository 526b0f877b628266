import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { decodeCursor, encodeCursor, type CursorScope } from '#domain/cursors';
import { ValidationFailed } from '#domain/errors';
import { listProjects } from '#domain/projects';
import { db } from '#store/client';

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

describe('cursors are tamper-evident (keyed MAC)', () => {
  const decoded = (c: string) => JSON.parse(Buffer.from(c, 'base64url').toString()) as { f: string; k: Record<string, string> };
  const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

  test('an edited key with the original tag is refused, whatever was edited', () => {
    const cursor = encodeCursor(scope, key)!;
    const { f } = decoded(cursor);
    for (const k of [
      { ...key, SK: 'PROJECT#c' },
      { ...key, SK: 'PROJECT#' },
      { ...key, SK: '' },
      { SK: key.SK, PK: key.PK },
      { ...key, SK: 'PROJECT#b\u0000' },
    ]) {
      expect(() => decodeCursor(scope, encode({ f, k })), JSON.stringify(k)).toThrow(ValidationFailed);
    }
  });

  test('a tag computed without the key (a plain hash of public values) is refused', () => {
    const forged = encode({ f: createHash('sha256').update(JSON.stringify(scope.fingerprint)).digest('base64url').slice(0, 22), k: key });
    expect(() => decodeCursor(scope, forged)).toThrow(ValidationFailed);
  });

  test('a forged cursor is refused before any DynamoDB call', async () => {
    let calls = 0;
    db.middlewareStack.add(
      (next) => async (args) => {
        calls++;
        return next(args);
      },
      { step: 'initialize', name: 'countCalls' },
    );
    try {
      const forged = encode({ f: 'x'.repeat(22), k: { PK: 'WS#acme', SK: '' } });
      await expect(listProjects('acme', { limit: 10, cursor: forged })).rejects.toThrow(ValidationFailed);
      expect(calls).toBe(0);
    } finally {
      db.middlewareStack.remove('countCalls');
    }
  });
});
