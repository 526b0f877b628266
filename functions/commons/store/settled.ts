/**
 * Work run side by side that ends as one: like Promise.all, but a failure is thrown only once every part has settled.
 * Promise.all rejects at the first failure and leaves the other parts running: their calls would go on after the
 * request answered (a write landing after a 503; in Lambda, frozen with the function and woken in a later request, whose
 * logs and calls they would join). A request or a batch leaves no call of its own behind it.
 */
export async function allSettled<T extends readonly unknown[] | []>(parts: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results: readonly PromiseSettledResult<unknown>[] = await Promise.allSettled(parts as readonly unknown[]);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
