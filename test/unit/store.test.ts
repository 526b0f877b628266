import { describe, expect, test } from 'vitest';
import { inDomainTerms } from '#domain/failures';
import { toProblem as problemOf } from '#wire/problems';

/** The problem a failure of the store is answered with: put in the domain's words, then at the edge. */
const toProblem = (error: unknown) => problemOf(inDomainTerms(error));
import { sampleProjectItem } from '#support/items';
import { decodeProject } from '#store/projectItem';
import { CorruptItem, TransactionCancelled } from '#store/errors';
import { AGAIN, withRetries } from '#store/retry';

describe('typed reads', () => {
  test('a stored item without a promised attribute is a CorruptItem naming item and attribute, answered as a 500 that says nothing of it', () => {
    const stored = sampleProjectItem({ workspace: 'acme', slug: 'web', name: 'Web' });
    expect(decodeProject(stored).name).toBe('Web');
    const item = { ...stored, name: 42 };
    expect(() => decodeProject(item)).toThrow(CorruptItem);
    expect(() => decodeProject(item)).toThrow('WS#acme / PROJECT#web: name is not a string');
    expect(toProblem(new CorruptItem('WS#acme / PROJECT#web: name is not a string'))).toEqual({
      code: 'internal_error',
      detail: 'An unexpected error occurred.',
    });
  });
});

describe('named transaction parts', () => {
  const cancelled = new TransactionCancelled(
    new Map([
      ['label', 'None'],
      ['guard', 'ConditionalCheckFailed'],
      ['link:t-1', 'None'],
      ['link:t-2', 'ConditionalCheckFailed'],
    ]),
  );

  test('a cancellation is read by part name, or by a family of parts', () => {
    expect(cancelled.conditionFailed('guard')).toBe(true);
    expect(cancelled.conditionFailed('label')).toBe(false);
    expect(cancelled.conditionFailed('link')).toBe(true);
    expect(cancelled.conflicted).toBe(false);
    expect(cancelled.message).toBe('Transaction cancelled: guard ConditionalCheckFailed, link:t-2 ConditionalCheckFailed');
  });

  test('a conflict with another writer is a 503 to retry; a failed condition alone is not', () => {
    const conflict = new TransactionCancelled(new Map([['use', 'TransactionConflict']]));
    expect(toProblem(conflict)).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '1' } });
    expect(toProblem(cancelled).code).toBe('internal_error');
  });
});

describe('the retry policy', () => {
  test('runs again until an attempt succeeds, then answers its value', async () => {
    let calls = 0;
    const value = await withRetries({ attempts: 5, baseMs: 1, capMs: 2, retryAfterSeconds: 1 }, 'busy', async () =>
      ++calls < 3 ? AGAIN : 'done',
    );
    expect([value, calls]).toEqual(['done', 3]);
  });

  test('gives up after its attempts with a 503 carrying the policy Retry-After', async () => {
    let calls = 0;
    const run = withRetries({ attempts: 4, baseMs: 1, capMs: 2, retryAfterSeconds: 7 }, 'still busy', async () => {
      calls++;
      return AGAIN;
    });
    const error = await run.catch((e: unknown) => e);
    expect(calls).toBe(4);
    expect(toProblem(error)).toMatchObject({ code: 'service_unavailable', detail: 'still busy', headers: { 'Retry-After': '7' } });
  });
});
