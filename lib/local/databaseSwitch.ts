import type { IncomingMessage, ServerResponse } from 'node:http';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { db } from '#store/client';
import { tableName } from '#store/table';
import { ensureTable } from './database.ts';
import type { StreamRunner } from './streams.ts';

/**
 * Makes the shared DocumentClient send the current AWS_ACCESS_KEY_ID with each request (it reads its
 * credentials once, at its first call): DynamoDB Local picks the database by the key and checks no
 * signature, so one process can move between databases of one DynamoDB Local.
 */
export function followAccessKey(): void {
  db.middlewareStack.add(
    (next) => async (args) => {
      const headers = (args.request as { headers?: Record<string, string> }).headers;
      if (headers?.authorization)
        headers.authorization = headers.authorization.replace(/Credential=[^/]+\//, `Credential=${process.env.AWS_ACCESS_KEY_ID}/`);
      return next(args);
    },
    { step: 'deserialize', name: 'localAccessKey', priority: 'low', override: true },
  );
}

/** POST {"accessKey": "..."}: answered 204 once the API and its stream processor use that key's database. */
const DATABASE_PATH = '/__local/database';

/**
 * For the test suite's local APIs only (`npm start` with DYNAMODB_LOCAL_SHARED=1): each test file moves
 * its worker's API to a database of its own in the run's DynamoDB Local (test/support/env.ts), its table
 * made at the move. A database holding what every earlier file of the run wrote makes DynamoDB Local
 * slower at everything: a stream read costs time in proportion to every stream record the database
 * keeps (those of deleted tables too), and the stream runner reads all the time.
 * Answers true when it took the request.
 */
export function databaseSwitch(stream: StreamRunner, endpoint: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  followAccessKey();
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== DATABASE_PATH) return false;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { accessKey } = JSON.parse(body) as { accessKey: string };
      const moveTo = async () => {
        // The table the file before used goes: DynamoDB Local spends CPU time on every database it holds,
        // idle or not, about 1.8 ms a second each with its table and 0.8 ms once the table is deleted
        // (measured with 100 of them: 0.18 and 0.08 of a core).
        const before = new DynamoDBClient({ endpoint });
        await before.send(new DeleteTableCommand({ TableName: tableName() })).finally(() => before.destroy());
        process.env.AWS_ACCESS_KEY_ID = accessKey;
        const client = new DynamoDBClient({ endpoint });
        try {
          await ensureTable(client, tableName());
        } finally {
          client.destroy();
        }
      };
      stream.reset(moveTo).then(
        () => res.writeHead(204).end(),
        (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
      );
    });
    return true;
  };
}
