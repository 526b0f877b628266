import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, expect, test } from 'vitest';
import { createProject } from '#domain/projects';

// What a create reads after losing its slug: the keys of the slug's family, not the items (a family of
// projects with long descriptions answered megabytes to every lost race).
const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => ddb.reset());
afterAll(() => ddb.restore());

test('a create whose slug is taken reads only the keys of the taken slugs, and takes the next free one', async () => {
  const taken = Object.assign(new Error('taken'), { name: 'ConditionalCheckFailedException', $metadata: {} });
  ddb.on(PutCommand).rejectsOnce(taken).resolves({});
  // Then its copies (store/copies.ts): the copies' LAYOUT item, and their transaction.
  ddb.on(GetCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
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
