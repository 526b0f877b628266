import { createRequire } from 'node:module';
import type * as Zlib from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db } from './client';
import { map, num, oneOf, str } from './codec';
import { conditionally, isConditionFailure } from './errors';
import { ItemType, keys, type Key } from './keys';
import type { Item } from './query';
import { tableName } from './table';

/**
 * Idempotency-Key records: one item per (workspace, owner, key), holding the request's fingerprint,
 * then the answer it got. A record is `pending` while its request runs (a lease: a request that died
 * mid-way frees the key when the lease runs out) and `done` with the answer after; it expires (TTL)
 * a day after the first request. An expired record that TTL has not removed yet counts as absent.
 */

/** The answer a key replays: status, the headers worth replaying, and the body as first sent. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Bodies above this are stored gzipped (answers of lists of labels compress tenfold and more). */
const GZIP_ABOVE_BYTES = 8 * 1024;
/** Far enough below DynamoDB's 400 KB item limit for the record's other attributes. */
const MAX_STORED_BYTES = 300 * 1024;

// zlib only when an answer is large: most requests never load it.
let zlib: typeof Zlib | undefined;
const loadZlib = () => (zlib ??= createRequire(import.meta.url)('node:zlib') as typeof Zlib);

export type Claim =
  | { state: 'claimed' }
  | { state: 'pending'; fingerprint: string }
  | { state: 'done'; fingerprint: string; answer: StoredAnswer };

export interface KeyRef {
  ws: string;
  hash: string;
  /** The claiming request (its Lambda request id): only it may complete or release its claim. */
  holder: string;
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * Claims the key for one request, or tells what holds it: a running request (`pending`) or the
 * answer of a finished one (`done`). One conditional PutItem; a refused put returns the record
 * with it (ReturnValuesOnConditionCheckFailure), read again consistently only where that is missing.
 */
export async function claimKey(ref: KeyRef, fingerprint: string, leaseSeconds: number, ttlSeconds: number): Promise<Claim> {
  const at = now();
  const key = keys.idempotencyKey(ref.ws, ref.hash);
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          type: ItemType.idempotencyKey,
          workspace: ref.ws,
          fingerprint,
          state: 'pending',
          holder: ref.holder,
          locked_until: at + leaseSeconds,
          ttl: at + ttlSeconds,
        },
        ConditionExpression: 'attribute_not_exists(PK) OR #ttl <= :now OR (#state = :pending AND locked_until < :now)',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#state': 'state' },
        ExpressionAttributeValues: { ':now': at, ':pending': 'pending' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { state: 'claimed' };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const returned = (error as { Item?: Record<string, AttributeValue> }).Item;
    const item = returned ? unmarshall(returned) : await readKey(key);
    // Gone between the put and the read (expired and removed): the caller may simply try again.
    if (!item) return claimKey(ref, fingerprint, leaseSeconds, ttlSeconds);
    return decodeClaim(item);
  }
}

async function readKey(key: Key): Promise<Item | undefined> {
  const { Item: item } = await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return item;
}

function decodeClaim(item: Item): Claim {
  const fingerprint = str(item, 'fingerprint');
  if (oneOf(item, 'state', ['pending', 'done'] as const) === 'pending') {
    return { state: 'pending', fingerprint };
  }
  const gzipped = item.body_gz instanceof Uint8Array;
  return {
    state: 'done',
    fingerprint,
    answer: {
      status: num(item, 'status'),
      headers: map(item, 'headers') as Record<string, string>,
      body: gzipped
        ? loadZlib()
            .gunzipSync(item.body_gz as Uint8Array)
            .toString('utf8')
        : str(item, 'body'),
    },
  };
}

/**
 * Records the answer of the request holding the claim: `kept`, `lost` when it no longer holds it, or
 * `too-large` when even gzipped it would not fit an item (nothing written; the caller frees the key).
 */
export async function completeKey(ref: KeyRef, answer: StoredAnswer): Promise<'kept' | 'lost' | 'too-large'> {
  const gzipped = Buffer.byteLength(answer.body) > GZIP_ABOVE_BYTES;
  const body = gzipped ? new Uint8Array(loadZlib().gzipSync(answer.body)) : answer.body;
  if (gzipped && body.length > MAX_STORED_BYTES) return 'too-large';
  const kept = await conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.idempotencyKey(ref.ws, ref.hash),
        UpdateExpression: `SET #state = :done, #status = :status, headers = :headers, ${gzipped ? 'body_gz' : 'body'} = :body REMOVE locked_until`,
        ConditionExpression: 'holder = :holder AND #state = :pending',
        ExpressionAttributeNames: { '#state': 'state', '#status': 'status' },
        ExpressionAttributeValues: {
          ':done': 'done',
          ':pending': 'pending',
          ':status': answer.status,
          ':headers': answer.headers,
          ':body': body,
          ':holder': ref.holder,
        },
      }),
    ),
  );
  return kept ? 'kept' : 'lost';
}

/** Frees the key after a failure worth retrying (5xx): the next request with it runs afresh. */
export async function releaseKey(ref: KeyRef): Promise<void> {
  // A claim that is no longer this request's (or no longer pending) is left as it is.
  await conditionally(
    db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.idempotencyKey(ref.ws, ref.hash),
        ConditionExpression: 'holder = :holder AND #state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':holder': ref.holder, ':pending': 'pending' },
      }),
    ),
  );
}
