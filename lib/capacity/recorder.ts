import type { DeserializeMiddleware, HttpRequest, HttpResponse } from '@smithy/types';
import { db } from '#store/client';
import { TABLE } from '#store/table';
import { batchOf } from '#local/partitions/batches';
import type { Draw } from '#local/partitions/buckets';
import { imagesOf, sideReader, writtenBy, type Images } from '#local/partitions/images';
import { answerOf, bodyText, operationOf } from '#local/partitions/simulator';
import { consumption, doubled, readDraw, transactPartDraws, type Wire, type WireItem } from '#local/partitions/units';

/**
 * What `npm run capacity` sees of each DynamoDB call the service makes: a middleware on the shared
 * client, where the partition simulator sits (below the SDK's retries: each attempt as DynamoDB gets
 * it), reading the request and its answer with the simulator's own rules of what a call consumes
 * (lib/local/partitions/units.ts), so the model and the simulator cannot disagree. Each draw on the
 * table is tagged with the one item it reads or writes (its sort key), which is what split for heat
 * cannot divide; a Query's draw reads a range and has none. A write is counted from its items' images
 * before and after (read around it, images.ts), as DynamoDB bills it: index entries rewritten included.
 */
export interface Touch extends Draw {
  /** The sort key of the one item drawn on (absent for a Query and for index entries). */
  item?: string;
  /** A Query's sort-key prefix, or where its range begins (what says which shard a sharded key keeps its range in: shardedKeys.ts). */
  range?: string;
}

export interface Call {
  operation: string;
  /** Items the call read or wrote (a Query: the items it returned). */
  items: number;
  touches: Touch[];
}

let recording: Call[] | undefined;

/** Runs `work` and returns the DynamoDB calls made meanwhile (one thing at a time: not reentrant). */
export async function recorded(work: () => Promise<unknown>): Promise<Call[]> {
  const calls: Call[] = [];
  recording = calls;
  try {
    await work();
    return calls;
  } finally {
    recording = undefined;
  }
}

let installed = false;

/** Adds the recorder to the shared client, before any call is to be recorded (once: a second call changes nothing). */
export function installRecorder(): void {
  if (installed) return;
  db.middlewareStack.add(recorder(), { step: 'deserialize', priority: 'low', name: 'capacityRecorder' });
  installed = true;
}

function recorder<I extends object, O extends object>(): DeserializeMiddleware<I, O> {
  const readImages = sideReader();
  return (next) => async (args) => {
    if (!recording) return next(args);
    const request = args.request as HttpRequest;
    const operation = operationOf(request);
    const input = JSON.parse(bodyText(request.body)) as Wire;
    const written = writtenBy(operation, input);
    const read = written && readImages(request);
    const before = read && (await read(written));
    const result = await next(args);
    const calls = recording;
    if (!calls) return result;
    const output = await answerOf(result.response as HttpResponse);
    const images = read && before ? imagesOf(written, before, await read(written)) : undefined;
    calls.push(callOf(operation, input, output, images));
    return result;
  };
}

const sortKey = (key: WireItem | undefined) => key?.[TABLE.sortKey]?.S as string | undefined;

/** The draws of one item's read or write, the table's own tagged with the item. */
function onItem(draws: Draw[], key: WireItem | undefined): Touch[] {
  const item = sortKey(key);
  return draws.map((d) => (d.index === undefined && item !== undefined ? { ...d, item } : d));
}

function callOf(operation: string, input: Wire, output: Wire | undefined, images: Images | undefined): Call {
  const table = String(input.TableName);
  switch (operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem': {
      const key = (input.Key ?? input.Item) as WireItem;
      return { operation, items: 1, touches: onItem(consumption(operation, input, output, images) ?? [], key) };
    }
    case 'TransactWriteItems': {
      const parts = input.TransactItems as Wire[];
      const touches = parts.flatMap((part) => {
        const body = Object.values(part)[0] as Wire;
        return onItem(doubled(transactPartDraws(part, images)), (body.Key ?? body.Item) as WireItem);
      });
      return { operation, items: parts.length, touches };
    }
    case 'TransactGetItems': {
      const gets = (input.TransactItems as { Get: Wire }[]).map(({ Get }) => Get);
      const found = (output?.Responses ?? []) as { Item?: WireItem }[];
      const touches = gets.flatMap((get, i) => {
        const key = get.Key as WireItem;
        return onItem(doubled(readDraw(String(get.TableName), key, true, found[i]?.Item)), key);
      });
      return { operation, items: gets.length, touches };
    }
    case 'BatchWriteItem':
    case 'BatchGetItem': {
      const batch = batchOf(operation, input)!;
      const touches = batch.entries.flatMap((entry) => {
        const request = entry.request as { PutRequest?: { Item: WireItem }; DeleteRequest?: { Key: WireItem } } & WireItem;
        const key = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? (request as WireItem);
        return onItem(batch.consumed([entry], output, images), key);
      });
      return { operation, items: batch.entries.length, touches };
    }
    case 'Query': {
      const values = input.ExpressionAttributeValues as Record<string, { S?: string }> | undefined;
      const range = (values?.[':prefix'] ?? values?.[':from'])?.S;
      const touches = (consumption(operation, input, output) ?? []).map((t) => (range === undefined ? t : { ...t, range }));
      return { operation, items: ((output?.Items ?? []) as unknown[]).length, touches };
    }
    default:
      // A Scan reads every partition: none of the service's paths makes one, and the model would say so.
      return { operation, items: Number(output?.Count ?? 0), touches: [{ table, key: '(every partition)', capacity: 'read', units: 0 }] };
  }
}
