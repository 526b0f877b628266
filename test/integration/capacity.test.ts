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
 * for byte; so must the figures at the limits the stack's method throttles come from (lib/aws/routesAtLimits.json). A change to a code path that moves a call, a key or a unit fails here until the page is
 * made again (`npm run capacity`) and committed with the change.
 */
test('docs/capacity.md and lib/aws/routesAtLimits.json are what npm run capacity writes from the code as it is', async () => {
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
  const files = JSON.parse(ran.stdout) as Record<string, string>;
  expect(Object.keys(files).sort()).toEqual([
    'docs/capacity.md',
    'functions/commons/domain/routeLoads.json',
    'lib/aws/routesAtLimits.json',
  ]);
  for (const [path, text] of Object.entries(files)) expect(text, path).toBe(readFileSync(join(repoRoot, path), 'utf8'));
  // Every route at the limits answers under the 5 MB docs/api.md bounds answers to (Lambda's limit is 6 MB).
  const atLimits = JSON.parse(files['lib/aws/routesAtLimits.json']!) as Record<string, { answer: number }>;
  const over = Object.entries(atLimits).filter(([, r]) => !(r.answer > 0 && r.answer < 5 * 1024 * 1024));
  expect(over).toEqual([]);
}, 200_000);
