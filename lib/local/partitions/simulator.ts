import { randomUUID } from 'node:crypto';
import type {
  AbsoluteLocation,
  DeserializeHandlerOptions,
  DeserializeHandlerOutput,
  DeserializeMiddleware,
  HttpRequest,
  HttpResponse,
} from '@smithy/types';
import { batchOf, type Batch } from './batches';
import type { Draw, Empty, PartitionBuckets } from './buckets';
import { imageId, imagesOf, writtenBy, type Images, type ReadImages } from './images';
import { consumption, indexPartitions, type Wire, type WireItem } from './units';

/**
 * The local partition simulator: a middleware on the DynamoDB client `npm start` runs every function
 * with. It sits below the SDK's deserializer and retries (step deserialize, priority low), where it sees
 * each attempt's HTTP request as DynamoDB would, and answers one whose partition has no units left
 * as DynamoDB does: HTTP 400 with the throttling error's JSON, which the SDK turns into its own
 * exception and retries with backoff, and the store maps to Busy (503, Retry-After) when it persists.
 * Nothing in functions/ knows of it: it is added by lib/local only (install.ts), never bundled for Lambda.
 * Given `readImages` (images.ts), a write is charged as DynamoDB bills it, from its items before and
 * after, and refused while any index its items are in has no units left; without it (tests of the
 * simulator's own parts), as the request alone tells.
 */
export const SIMULATOR_MIDDLEWARE: DeserializeHandlerOptions & AbsoluteLocation & { name: string } = {
  step: 'deserialize',
  priority: 'low',
  name: 'localPartitionSimulator',
};

/** What a single-item call and a batch that cannot go at all get; what a transaction gets. */
const THROTTLED = 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException';
const TRANSACTION_THROTTLED = 'com.amazon.coral.availability#ThrottlingException';
/** Answers read for their size: the reads', and an update's (it may return the whole item). */
const MEASURED = new Set(['GetItem', 'Query', 'TransactGetItems', 'BatchGetItem', 'UpdateItem']);

/** The refusal DynamoDB sends for a hot partition, naming it as the ThrottlingReasons of today's service do. */
function throttledResponse(operation: string, hot: Empty): HttpResponse {
  const resource = `arn:aws:dynamodb:ddblocal:000000000000:table/${hot.table}${hot.index ? `/index/${hot.index}` : ''}`;
  const reason = `${hot.index ? 'Index' : 'Table'}${hot.capacity === 'read' ? 'Read' : 'Write'}KeyRangeThroughputExceeded`;
  const where = `partition key value ${JSON.stringify(hot.key)}${hot.index ? ` of index ${hot.index}` : ''}`;
  const what = hot.onItem ? `the item ${JSON.stringify(hot.item)} of ${where} (an item cannot be split)` : where;
  return jsonResponse(400, {
    __type: operation.startsWith('Transact') ? TRANSACTION_THROTTLED : THROTTLED,
    message: `Throughput exceeds the current capacity of your table or index: ${what} has no ${hot.capacity} units left (the local partition simulator, DYNAMODB_PARTITION_LIMITS).`,
    ThrottlingReasons: [{ reason, resource }],
  });
}

function jsonResponse(statusCode: number, body: Wire, headers: Record<string, string> = {}): HttpResponse {
  const bytes = Buffer.from(JSON.stringify(body));
  return {
    statusCode,
    headers: {
      'x-amzn-requestid': randomUUID(),
      ...headers,
      'content-type': 'application/x-amz-json-1.0',
      'content-length': String(bytes.length),
    },
    body: bytes,
  };
}

/** The answer's JSON, its body read once and put back as bytes for the deserializer. */
export async function answerOf(response: HttpResponse): Promise<Wire | undefined> {
  if (response.statusCode !== 200) return undefined;
  const chunks: Buffer[] = [];
  const body = response.body as Uint8Array | AsyncIterable<Uint8Array>;
  if (body instanceof Uint8Array) chunks.push(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  else for await (const chunk of body) chunks.push(Buffer.from(chunk));
  response.body = Buffer.concat(chunks);
  return JSON.parse(response.body.toString('utf8')) as Wire;
}

/** The DynamoDB operation an HTTP request calls (its X-Amz-Target header). */
export const operationOf = (request: HttpRequest) => String(request.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, '');

/** A request's JSON text: the SDK's body is bytes (that also read as a string). */
export function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  return body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8') : '{}';
}

/** The request with another JSON body (the requests of a batch that may go). */
function withBody(request: HttpRequest, body: Wire): HttpRequest {
  const bytes = Buffer.from(JSON.stringify(body));
  return { ...request, headers: { ...request.headers, 'content-length': String(bytes.length) }, body: bytes };
}

/**
 * What a request draws (a batch: request by request), or undefined for what the simulator lets through:
 * an operation it does not charge, or a request it cannot read (DynamoDB Local answers that one itself).
 */
function planOf(operation: string, request: HttpRequest): { input: Wire; batch?: Batch; draws: Draw[] } | undefined {
  try {
    const input = JSON.parse(bodyText(request.body)) as Wire;
    const batch = batchOf(operation, input);
    if (batch) return { input, batch, draws: [] };
    const draws = consumption(operation, input);
    return draws && { input, draws };
  } catch {
    return undefined;
  }
}

export function partitionSimulator<I extends object, O extends object>(
  buckets: PartitionBuckets,
  readImages?: (request: HttpRequest) => ReadImages,
): DeserializeMiddleware<I, O> {
  return (next) => async (args) => {
    const request = args.request as HttpRequest;
    const operation = operationOf(request);
    const plan = planOf(operation, request);
    if (!plan) return next(args);
    const { input, batch, draws } = plan;
    // What the request tells is refused at once, as DynamoDB refuses it; the index entries its items have now, once read.
    const hot = batch ? undefined : buckets.emptyAmong(draws);
    if (hot) return { response: throttledResponse(operation, hot) };
    // Taken on arrival, as DynamoDB takes it (requests at once cannot all pass one full bucket), set right once answered.
    const reserved = batch ? [] : draws;
    buckets.charge(reserved);
    const released = reserved.map((d) => ({ ...d, units: -d.units }));
    const written = readImages && writtenBy(operation, input);
    const read = written && readImages!(request);
    const before = read && (await read(written));
    const images = async () => (read && before ? imagesOf(written, before, await read(written)) : undefined);
    const entriesOf = (table: string, key: WireItem | undefined) =>
      before && key ? indexPartitions(table, before.get(imageId(table, key))) : [];
    if (batch) {
      for (const e of batch.entries) e.draws = [...e.draws, ...entriesOf(e.table, e.key)];
      return sendBatch(batch, operation, request, (r) => next({ ...args, request: r }), buckets, images);
    }
    const hotEntry = buckets.emptyAmong((written ?? []).flatMap((w) => entriesOf(w.table, w.key)));
    if (hotEntry) {
      buckets.charge(released);
      return { response: throttledResponse(operation, hotEntry) };
    }
    const result = await next(args);
    const output = MEASURED.has(operation) ? await answerOf(result.response as HttpResponse) : undefined;
    // Charged whatever the answer: DynamoDB charges a write whose condition failed too (its images are the same: no index entry).
    buckets.charge([...(consumption(operation, input, output, await images()) ?? draws), ...released]);
    return result;
  };
}

/** A batch: the requests whose partitions have units go, the others are answered unprocessed. */
async function sendBatch<O extends object>(
  batch: Batch,
  operation: string,
  request: HttpRequest,
  send: (request: HttpRequest) => Promise<DeserializeHandlerOutput<O>>,
  buckets: PartitionBuckets,
  images: () => Promise<Images | undefined>,
): Promise<DeserializeHandlerOutput<O>> {
  const kept = batch.entries.filter((e) => !buckets.emptyAmong(e.draws));
  const left = batch.entries.filter((e) => !kept.includes(e));
  if (kept.length === 0 && left.length > 0) return { response: throttledResponse(operation, buckets.emptyAmong(left[0]!.draws)!) };
  const result = await send(left.length ? withBody(request, batch.withOnly(kept)) : request);
  const response = result.response as HttpResponse;
  const output = MEASURED.has(operation) || left.length ? await answerOf(response) : undefined;
  buckets.charge(batch.consumed(kept, output, await images()));
  if (!output || !left.length) return result;
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !/^(content-length|x-amz-crc32)$/i.test(name)));
  return { ...result, response: jsonResponse(response.statusCode, batch.withUnprocessed(output, left), headers) };
}
