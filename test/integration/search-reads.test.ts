import { expect, test } from 'vitest';
import { searchProjects } from '#domain/search';
import { db } from '#store/client';
import { uniqueWorkspace } from '#support/api';
import { seedProjects } from '#bench/harness';

/**
 * A search of several workspaces (a token's, when the request names none) reads what its answer still
 * has room for: the name index of each next workspace is asked for the rest of the limit, not a whole
 * limit again, so ten workspaces read about one page of projects. In process, against the suite's DynamoDB Local.
 */
test('a search across workspaces asks each next one for the room left, and stops once the answer is full', async () => {
  const [a, b, c] = [uniqueWorkspace('search'), uniqueWorkspace('search'), uniqueWorkspace('search')];
  for (const ws of [a, b, c]) await seedProjects(ws, 6, (i) => `Alpha ${i}`);
  const asked: number[] = [];
  const name = `searchLimits${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { IndexName?: string; Limit?: number };
      if (context.commandName === 'QueryCommand' && input.IndexName === 'GSI2') asked.push(input.Limit ?? -1);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    const found = await searchProjects([a, b, c], 'alpha', 8);
    expect(found).toHaveLength(8);
    expect(found.filter((p) => p.workspace === a)).toHaveLength(6);
    expect(found.filter((p) => p.workspace === b)).toHaveLength(2);
    // The first workspace's query asked for 8 (and a look past them), the second for the 2 left; the third was not read.
    expect(asked).toHaveLength(2);
    expect(asked[1]!).toBeLessThan(asked[0]!);
    expect(asked[1]!).toBeLessThanOrEqual(3);
  } finally {
    db.middlewareStack.remove(name);
  }
});
