import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { database } from './client';
import type { Units } from './consumed';
import { ItemType, keys } from './keys';
import { tableName } from './table';
import { allSettled } from './settled';

/** Units drawn on one partition of a workspace (by its code: functions/commons/domain/routeLoads.json). */
export type Drawn = Units;

/** How long a second's item is kept: a few minutes say what a workspace drew lately, for whoever looks (TTL). */
const KEEP_SECONDS = 300;

/**
 * How long a send may take, its retries included: a request waits on it, and counts late are worth little (the
 * caller goes on with what it knew). A twentieth of the client's request timeout: 250 ms deployed, 1.5 s on DynamoDB
 * Local (store/client.ts). A retry of an ADD whose answer was lost counts twice: a little stricter, never looser.
 */
const sendMs = () => Number(process.env.DYNAMODB_REQUEST_TIMEOUT_MS ?? 5_000) / 20;

/**
 * Attribute names: `r<code>` and `w<code>`, a partition's read and write units (codes are six hex digits, and a
 * bucket's digit after them where the partition is one of the workspace's things: domain/workspaceRateLimits.ts).
 */
const CODE = '[0-9a-f]{6}[0-9]?';
const A_CODE = new RegExp(`^${CODE}$`);
const AN_ATTRIBUTE = new RegExp(`^([rw])(${CODE})$`);

/** A workspace's counts of two seconds: the one sent to, so far, and the one before it, whole. */
export interface Seconds {
  current: Map<string, Drawn>;
  before: Map<string, Drawn>;
}

/**
 * Adds what one instance counted of a workspace's requests to the workspace's item of that second, in
 * one UpdateItem, and answers what the item holds then (every instance's counts of the second so far) and,
 * read beside it (eventually consistent: half a read unit), the item of the second before.
 * An item a second (`LOAD#<ws>` / `S#<second>`), each counted once by each instance that sends its counts
 * there, so no read-modify-write races: ADD is atomic.
 */
export async function addDrawn(ws: string, second: number, counts: ReadonlyMap<string, Drawn>): Promise<Seconds> {
  const names: Record<string, string> = { '#type': 'type', '#ttl': 'ttl' };
  const values: Record<string, unknown> = { ':type': ItemType.workspaceLoad, ':ttl': second + KEEP_SECONDS };
  const adds: string[] = [];
  for (const [code, drawn] of counts) {
    if (!A_CODE.test(code)) throw new Error(`not a partition's code: ${code}`);
    for (const [side, units] of [
      ['r', drawn.read],
      ['w', drawn.write],
    ] as const) {
      if (!(units > 0)) continue;
      names[`#${side}${code}`] = `${side}${code}`;
      values[`:${side}${code}`] = Number(units.toFixed(4));
      adds.push(`#${side}${code} :${side}${code}`);
    }
  }
  const abortSignal = AbortSignal.timeout(sendMs());
  const client = database();
  const [{ Attributes }, { Item }] = await allSettled([
    client.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.workspaceLoad(ws, second),
        UpdateExpression: `SET #type = :type, #ttl = :ttl${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
      { abortSignal },
    ),
    client.send(new GetCommand({ TableName: tableName(), Key: keys.workspaceLoad(ws, second - 1) }), { abortSignal }),
  ]);
  return { current: drawnIn(Attributes), before: drawnIn(Item) };
}

function drawnIn(item: Record<string, unknown> | undefined): Map<string, Drawn> {
  const found = new Map<string, Drawn>();
  for (const [name, value] of Object.entries(item ?? {})) {
    const [, side, code] = AN_ATTRIBUTE.exec(name) ?? [];
    if (!side || !code || typeof value !== 'number') continue;
    const drawn = found.get(code) ?? { read: 0, write: 0 };
    drawn[side === 'r' ? 'read' : 'write'] = value;
    found.set(code, drawn);
  }
  return found;
}
