import type { HttpRequest } from '@smithy/types';
import { TABLE } from '#store/table';
import { keyOf, type Wire, type WireItem } from './wire';

/**
 * The items a write changes, as they were before it and as they are after it. DynamoDB bills a write by
 * them, not by the request: the larger of the two images, and every index entry the change adds, moves,
 * rewrites or removes (an update of a counter on a project rewrites its entry in every index that
 * carries the counter, though the update names no index key). The request tells the key of each item
 * it writes; the images are read beside it from DynamoDB Local (consistently, through none of the
 * shared client's middleware), once before the write goes and once after it answers.
 */

/** One item a write request changes (or checks: a transaction's ConditionCheck). */
export interface Written {
  table: string;
  key: WireItem;
}

/** Each written item's images by imageId: before the write, and after it (absent: no item). */
export type Images = Map<string, { before?: WireItem; after?: WireItem }>;

/** Reads the current images of `written` (by imageId; an item that does not exist is absent). */
export type ReadImages = (written: readonly Written[]) => Promise<Map<string, WireItem>>;

export const imageId = (table: string, key: WireItem) => JSON.stringify([table, key[TABLE.partitionKey], key[TABLE.sortKey]]);

/** The items a write request changes, or undefined for a request that writes nothing. */
export function writtenBy(operation: string, input: Wire): Written[] | undefined {
  const table = String(input.TableName);
  switch (operation) {
    case 'PutItem':
      return [{ table, key: keyOf(input.Item as WireItem) }];
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ table, key: input.Key as WireItem }];
    case 'TransactWriteItems':
      return (input.TransactItems as Wire[]).map((part) => {
        const body = Object.values(part)[0] as Wire;
        return { table: String(body.TableName), key: body.Key ? (body.Key as WireItem) : keyOf(body.Item as WireItem) };
      });
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems as Record<string, Wire[]>).flatMap(([batchTable, requests]) =>
        requests.map((r) => {
          const put = r.PutRequest as { Item: WireItem } | undefined;
          return { table: batchTable, key: put ? keyOf(put.Item) : (r.DeleteRequest as { Key: WireItem }).Key };
        }),
      );
    default:
      return undefined;
  }
}

/** Both images of each written item, from the reads before and after. */
export function imagesOf(written: readonly Written[], before: Map<string, WireItem>, after: Map<string, WireItem>): Images {
  const images: Images = new Map();
  for (const { table, key } of written) {
    const id = imageId(table, key);
    images.set(id, { before: before.get(id), after: after.get(id) });
  }
  return images;
}

/** BatchGetItem's most keys a call. */
const KEYS_PER_BATCH = 100;

/**
 * The reader of images for the DynamoDB Local a request goes to, in the database its access key picks:
 * DynamoDB Local keeps one per key and checks no signature, so the side reads carry the request's own
 * Authorization header, and come back as the wire's JSON (what units.ts sizes).
 */
export function sideReader(): (request: HttpRequest) => ReadImages {
  return (request) => {
    const endpoint = `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}/`;
    const headers = {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.BatchGetItem',
      authorization: String(request.headers.authorization ?? ''),
      'x-amz-date': String(request.headers['x-amz-date'] ?? ''),
    };
    const batchGet = async (body: Wire): Promise<Wire> => {
      const answer = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!answer.ok) throw new Error(`the partition model's read of images failed: ${answer.status} ${await answer.text()}`);
      return (await answer.json()) as Wire;
    };
    return (written) => readItems(batchGet, written);
  };
}

async function readItems(batchGet: (body: Wire) => Promise<Wire>, written: readonly Written[]): Promise<Map<string, WireItem>> {
  const found = new Map<string, WireItem>();
  const unique = [...new Map(written.map((w) => [imageId(w.table, w.key), w])).values()];
  for (let i = 0; i < unique.length; i += KEYS_PER_BATCH) {
    let pending: Record<string, { Keys: WireItem[]; ConsistentRead: true }> | undefined = {};
    for (const { table, key } of unique.slice(i, i + KEYS_PER_BATCH)) {
      pending[table] ??= { Keys: [], ConsistentRead: true };
      pending[table].Keys.push(key);
    }
    while (pending && Object.keys(pending).length > 0) {
      const out = await batchGet({ RequestItems: pending });
      for (const [table, items] of Object.entries((out.Responses ?? {}) as Record<string, WireItem[]>))
        for (const item of items) found.set(imageId(table, item), item);
      pending = out.UnprocessedKeys as typeof pending;
    }
  }
  return found;
}
