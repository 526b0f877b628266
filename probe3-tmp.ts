import { DynamoDBClient, DescribeTableCommand, CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBStreamsClient, DescribeStreamCommand, GetShardIteratorCommand, GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import { startDynamoDbLocal } from '#lib/local/database';
const port = 8713;
const db = await startDynamoDbLocal({ port, dataDir: process.argv[2]! });
const cfg = { endpoint: `http://localhost:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
const c = new DynamoDBClient(cfg);
const doc = DynamoDBDocumentClient.from(c);
const s = new DynamoDBStreamsClient(cfg);
const t = async <X>(label: string, f: () => Promise<X>) => {
  const a = performance.now();
  const x = await f();
  console.log(label.padEnd(20), (performance.now() - a).toFixed(1), 'ms');
  return x;
};
await t('create', () =>
  c.send(
    new CreateTableCommand({
      TableName: 'small',
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  ),
);
await t('put x10', async () => {
  for (let i = 0; i < 10; i++) await doc.send(new PutCommand({ TableName: 'small', Item: { PK: `k${i}` } }));
});
await t('scan', () => doc.send(new ScanCommand({ TableName: 'small' })));
const arn = (await c.send(new DescribeTableCommand({ TableName: 'small' }))).Table!.LatestStreamArn!;
for (let i = 0; i < 3; i++) {
  const desc = await t('describeStream', () => s.send(new DescribeStreamCommand({ StreamArn: arn })));
  const it = (
    await t('iterator', () =>
      s.send(
        new GetShardIteratorCommand({
          StreamArn: arn,
          ShardId: desc.StreamDescription!.Shards![0]!.ShardId!,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      ),
    )
  ).ShardIterator;
  await t('getRecords', () => s.send(new GetRecordsCommand({ ShardIterator: it, Limit: 100 })));
}
await t('delete', () => c.send(new DeleteTableCommand({ TableName: 'small' })));
await db.stop();
process.exit(0);
