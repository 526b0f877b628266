import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, expect, test } from 'vitest';
import { createProject } from '#domain/projects';

// What a create reads after losing its slug: the keys of the slug's family, not the items (a family of
// projects with long descriptions answered megabytes to every lost race).
const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => ddb.reset());
afterAll(() => ddb.restore());

test('a create whose slug is taken reads only the keys of the taken slugs, and takes the next free one', async () => {
  // A create is its item's conditional put and its copies' puts, in one transaction (store/copies.ts): the item's fails.
  const taken = Object.assign(new Error('taken'), {
    name: 'TransactionCanceledException',
    $metadata: {},
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, ...Array(8).fill({ Code: 'None' })],
  });
  ddb.on(GetCommand).resolves({ Item: { sharded_since: '1970-01-01T00:00:00.000Z', copied_at: '1970-01-01T00:00:00.000Z' } });
  ddb.on(TransactWriteCommand).rejectsOnce(taken).resolves({});
  ddb.on(QueryCommand).resolves({ Items: [{ PK: 'WS#acme-corp', SK: 'PROJECT#roadmap' }] });
  const made = await createProject('acme-corp', { name: 'Roadmap', description: 'x'.repeat(10_000), owner: { name: 'A', username: 'a' } });
  expect(made.slug).toBe('roadmap-2');
  const [query] = ddb.commandCalls(QueryCommand);
  expect(query?.args[0].input).toMatchObject({
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ProjectionExpression: '#pk, #sk',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: { ':prefix': 'PROJECT#roadmap' },
    ConsistentRead: true,
  });
});
