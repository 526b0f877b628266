import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import { localStack } from '#support/stack';
import { runTool } from '#support/tools';

/**
 * docs/capacity.md is what `npm run capacity` writes: the command runs every route and consumer on
 * this run's DynamoDB Local (a database of its own), and its page must equal the committed file byte
 * for byte. A change to a code path that moves a call, a key or a unit fails here until the page is
 * made again (`npm run capacity`) and committed with the change.
 */
test('docs/capacity.md is the page npm run capacity writes from the code as it is', async () => {
  const ran = await runTool(
    'bin/capacity.ts',
    ['--stdout'],
    {
      DYNAMODB_LOCAL_SHARED: '1',
      DYNAMODB_PORT: String(localStack().dynamodbPort),
      DYNAMODB_LOCAL_ACCESS_KEY: `capacity${randomBytes(6).toString('hex')}`,
    },
    180_000,
  );
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toBe(readFileSync(join(repoRoot, 'docs', 'capacity.md'), 'utf8'));
}, 200_000);
