/**
 * npm run soak: the randomized concurrent workload of the reliability tests, longer.
 * SOAK_OPERATIONS (default 20000), SOAK_CONCURRENCY (default 32), SOAK_SEED (default: time).
 * Starts its own in-memory local API on free ports, runs, waits for its stream processor to drain, then
 * checks the table; exit 1 on any violation.
 */
import { cliArguments } from '#lib/cli';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalApi } from '#support/local-api';

await cliArguments({ usage: 'usage: npm run soak   (SOAK_OPERATIONS, default 20000; SOAK_CONCURRENCY, default 32; SOAK_SEED)' });
const operations = Number(process.env.SOAK_OPERATIONS ?? 20_000);
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? 32);
const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);

const statusFile = join(mkdtempSync(join(tmpdir(), 'pls-soak-')), 'stream-status.json');
const api = await startLocalApi({ env: { STREAM_STATUS_FILE: statusFile }, asNpmRuns: true });
process.env.DYNAMODB_PORT = String(api.dynamodbPort);
const { useLocalDatabase } = await import('#local/database');
useLocalDatabase(api.dynamodbPort);
process.env.TABLE_NAME = '';
process.env.API_URL = api.url;
const { runWorkload } = await import('#support/workload');
const { createToken, MAX_RATE_LIMIT } = await import('#domain/tokens');
const { checkTable } = await import('#checker/invariants');
const { SCOPES } = await import('#domain/scopes');
const { streamCaughtUp } = await import('#local/streamReads');
try {
  const ws = 'soak';
  const { token } = await createToken({
    workspaces: [ws],
    owner: { name: 'Soak', username: 'soak' },
    scopes: [...SCOPES],
    limits: MAX_RATE_LIMIT,
  });
  const result = await runWorkload({ ws, token, operations, concurrency, seed });
  // Counters and cascades follow from the table's stream: check once it has drained.
  await streamCaughtUp(statusFile, new Date().toISOString(), 600_000);
  const { items, violations } = await checkTable([ws]);
  console.log(`soak: ${result.operations} operations, ${concurrency} in flight, seed ${seed}, ${result.seconds.toFixed(1)} s`);
  for (const [op, byStatus] of Object.entries(result.outcomes).sort()) console.log(`  ${op.padEnd(18)} ${JSON.stringify(byStatus)}`);
  console.log(`checker: ${items} items, ${violations.length} violations`);
  violations.slice(0, 50).forEach((v) => console.log(`VIOLATION ${v}`));
  process.exitCode = violations.length ? 1 : 0;
} finally {
  await api.stop();
}
