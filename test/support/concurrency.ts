import { expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { settledViolations } from './settle.ts';
import { tokenFor, uniqueWorkspace } from './api.ts';
import { runWorkload } from './workload.ts';

/** The randomized workload, in parts of their own files so that the run's workers share it (test/reliability/concurrency-*.test.ts). */
const PARTS = 4;
const OPERATIONS = Number(process.env.WORKLOAD_OPERATIONS ?? 1200);
const CONCURRENCY = Number(process.env.WORKLOAD_CONCURRENCY ?? 16);
const SEED = Number(process.env.WORKLOAD_SEED ?? 7);

/**
 * Part `part` (1..PARTS) of the workload: OPERATIONS / PARTS writes of every kind on a workspace of its
 * own, CONCURRENCY in flight, seeded SEED + part - 1; then, once the stream has drained, the checker.
 */
export function concurrencyPart(part: number): void {
  const operations = Math.ceil(OPERATIONS / PARTS);
  const seed = SEED + part - 1;
  test(`a randomized workload of ${operations} writes, ${CONCURRENCY} in flight, leaves zero violations once the stream has drained (counters equal a recount)`, async () => {
    const ws = uniqueWorkspace('load');
    const token = await tokenFor(ws);
    const result = await runWorkload({ ws, token, operations, concurrency: CONCURRENCY, seed });
    // Counters follow through the table's stream: they must equal a recount once it has drained.
    const violations = await settledViolations([ws]);
    const { items } = await checkTable([ws]);
    console.log(
      `concurrency ${part}/${PARTS}: ${result.operations} operations, ${CONCURRENCY} in flight, ${result.seconds.toFixed(1)} s, seed ${seed}`,
    );
    for (const [op, byStatus] of Object.entries(result.outcomes).sort()) console.log(`  ${op.padEnd(18)} ${JSON.stringify(byStatus)}`);
    console.log(`  checker: ${items} items, ${violations.length} violations`);
    expect(violations).toEqual([]);
    const statuses = Object.values(result.outcomes).flatMap((b) => Object.keys(b).map(Number));
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    // Every kind of operation really ran, and links were really made.
    expect(Object.keys(result.outcomes)).toHaveLength(14);
    expect(result.outcomes.attach?.[200]).toBeGreaterThan(0);
    expect(result.outcomes['delete label']?.[200]).toBeGreaterThan(0);
  }, 600_000); // 300 requests: about 10 s alone, several times that on a machine running more than this suite
}
