import { expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { settledViolations } from '#support/settle';
import { tokenFor, uniqueWorkspace } from '#support/api';
import { runWorkload } from '#support/workload';

const OPERATIONS = Number(process.env.WORKLOAD_OPERATIONS ?? 2000);
const CONCURRENCY = Number(process.env.WORKLOAD_CONCURRENCY ?? 16);
const SEED = Number(process.env.WORKLOAD_SEED ?? 7);

test(`a randomized workload of ${OPERATIONS} writes, ${CONCURRENCY} in flight, leaves zero violations once the stream has drained (counters equal a recount)`, async () => {
  const ws = uniqueWorkspace('load');
  const token = await tokenFor(ws);
  const result = await runWorkload({ ws, token, operations: OPERATIONS, concurrency: CONCURRENCY, seed: SEED });
  // Counters follow through the table's stream: they must equal a recount once it has drained.
  const violations = await settledViolations([ws]);
  const { items } = await checkTable([ws]);
  console.log(`concurrency: ${result.operations} operations, ${CONCURRENCY} in flight, ${result.seconds.toFixed(1)} s, seed ${SEED}`);
  for (const [op, byStatus] of Object.entries(result.outcomes).sort()) console.log(`  ${op.padEnd(18)} ${JSON.stringify(byStatus)}`);
  console.log(`  checker: ${items} items, ${violations.length} violations`);
  expect(violations).toEqual([]);
  const statuses = Object.values(result.outcomes).flatMap((b) => Object.keys(b).map(Number));
  expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
  // Every kind of operation really ran, and links were really made.
  expect(Object.keys(result.outcomes)).toHaveLength(14);
  expect(result.outcomes.attach?.[200]).toBeGreaterThan(0);
  expect(result.outcomes['delete label']?.[200]).toBeGreaterThan(0);
}, 600_000); // 2,000 requests: about 30 s alone, several times that on a machine running more than this suite
