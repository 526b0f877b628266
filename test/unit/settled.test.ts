import { describe, expect, test } from 'vitest';
import { mapInFlight } from '#store/batches';
import { allSettled } from '#store/settled';

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Whether `promise` has settled after every pending callback has run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setImmediate(r));
  return settled;
}

describe('work run side by side ends as one (store/settled.ts)', () => {
  test('answers every part in order', async () => {
    const [a, b] = await allSettled([Promise.resolve(1), Promise.resolve('two')]);
    expect([a, b]).toEqual([1, 'two']);
  });

  test('a failure is thrown only once every other part has ended', async () => {
    const slow = deferred<string>();
    const both = allSettled([Promise.reject(new Error('first')), slow.promise]);
    expect(await hasSettled(both)).toBe(false);
    slow.resolve('late');
    await expect(both).rejects.toThrow('first');
  });

  test('of several failures, the first part’s is thrown, whichever failed first', async () => {
    const later = deferred<never>();
    const both = allSettled([later.promise.then(() => Promise.reject(new Error('part one'))), Promise.reject(new Error('part two'))]);
    later.resolve(undefined as never);
    await expect(both).rejects.toThrow('part one');
  });
});

describe('the worker pool after a failure (store/batches.ts mapInFlight)', () => {
  test('takes no further item, and throws once the items in flight have ended', async () => {
    const started: number[] = [];
    const second = deferred<number>();
    const run = mapInFlight([0, 1, 2, 3, 4, 5], 2, async (i) => {
      started.push(i);
      if (i === 0) throw new Error('item 0 failed');
      return i === 1 ? second.promise : i;
    });
    expect(await hasSettled(run)).toBe(false);
    expect(started).toEqual([0, 1]);
    second.resolve(1);
    await expect(run).rejects.toThrow('item 0 failed');
    // The item in flight when 0 failed ended; its worker took no other.
    expect(started).toEqual([0, 1]);
  });

  test('answers every item in the items’ order when none fails, whatever order they end in', async () => {
    const first = deferred<void>();
    const run = mapInFlight([3, 1, 2], 2, async (i) => {
      if (i === 3) await first.promise; // the first item ends last
      return i * 10;
    });
    expect(await hasSettled(run)).toBe(false);
    first.resolve();
    expect(await run).toEqual([30, 10, 20]);
  });
});
