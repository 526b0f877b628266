import { TABLE, type TableIndex } from '#store/table';
import type { Capacity, Draw } from './buckets';
import { imageId, type Images } from './images';
import { assignments, keyOf, removals, type Value, type Wire, type WireItem } from './wire';

/**
 * What a DynamoDB request consumes, partition by partition, read from the request as the SDK sends it
 * (the JSON of the wire, AttributeValues and all) and, for reads, from the answer: DynamoDB's own rules
 * (docs/local.md, "The partition simulator"), as closely as a request and its answer tell them.
 *   - reads: 4 KB per read unit, rounded up per item (a Query: over the items together); eventually
 *     consistent reads (every index read) half; transactional reads double
 *   - writes: 1 KB per write unit, rounded up; transactional writes double; a write also draws on the
 *     partition of each index the item is in (it has both of the index's keys; an UpdateItem's
 *     `SET key = :v` or its returned item tells), for the size of what the index carries of it. An index
 *     that carries a few attributes (GSI3) is written only by an update that sets or removes its keys or
 *     those attributes: a key set moves the entry (two writes: the old one is taken to exist), a key
 *     removed deletes it (one).
 * Every table is read with the single table's key schema (TABLE): the sandbox and test tables share it.
 * That is the estimate from the request alone: it leaves out what the request does not tell (the index
 * entries a put replaces, a delete removes or an update of an indexed item's other attributes rewrites).
 * Given the written items' images before and after (images.ts), a write is counted as DynamoDB bills it:
 *   - the item: the larger of its two images (a delete: the item removed; a ConditionCheck: the item checked)
 *   - each index: an entry added or removed, one write of its size; moved (a key changed), two; rewritten
 *     (what the index carries of the item changed), one of the larger; nothing when what it carries is the same
 */

export type { Wire, WireItem } from './wire';

const READ_UNIT_BYTES = 4096;
const WRITE_UNIT_BYTES = 1024;
const TRANSACTIONAL = 2;
const INDEXES: readonly TableIndex[] = Object.values(TABLE.indexes);

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const total = (sizes: number[]) => sizes.reduce((a, b) => a + b, 0);
const strings = (list: unknown) => (Array.isArray(list) ? (list as string[]) : []);
/**
 * DynamoDB sizes a number by its significant digits; a whole number's trailing zeros are counted here as
 * digits too (a byte more at most): a timestamp ending in zeros, one time in ten by the clock, would
 * otherwise make an item near a unit's edge cost a unit less on some runs, and the model differ.
 */
const numberSize = (n: string) => {
  const digits = n.replace(/^-/, '').replace(/e.*$/i, '');
  return Math.ceil((digits.includes('.') ? digits.replace('.', '').replace(/^0+|0+$/g, '') : digits.replace(/^0+/, '')).length / 2) + 1;
};

/** An attribute value's size as DynamoDB counts it (names in UTF-8, numbers by their digits: numberSize). */
function valueSize(v: Value): number {
  if (typeof v.S === 'string') return bytes(v.S);
  if (typeof v.N === 'string') return numberSize(v.N);
  if (typeof v.B === 'string') return Buffer.from(v.B, 'base64').length;
  if (Array.isArray(v.SS)) return total(strings(v.SS).map(bytes));
  if (Array.isArray(v.NS)) return total(strings(v.NS).map(numberSize));
  if (Array.isArray(v.BS)) return total(strings(v.BS).map((b) => Buffer.from(b, 'base64').length));
  if (Array.isArray(v.L)) return 3 + total((v.L as Value[]).map((e) => 1 + valueSize(e)));
  if (v.M && typeof v.M === 'object') return 3 + total(Object.entries(v.M as WireItem).map(([k, e]) => bytes(k) + 1 + valueSize(e)));
  return 1; // BOOL, NULL
}

/** An item's size in bytes: its attribute names and values. */
export function itemSize(item: WireItem | undefined): number {
  return item ? total(Object.entries(item).map(([name, value]) => bytes(name) + valueSize(value))) : 0;
}

/** A partition key value as text (a string's characters, a number's digits, a binary's base64). */
function keyText(v: Value | undefined): string | undefined {
  if (!v) return undefined;
  for (const type of ['S', 'N', 'B'] as const) if (typeof v[type] === 'string') return v[type];
  return JSON.stringify(v);
}

const readUnits = (size: number, consistent: boolean) => Math.max(1, Math.ceil(size / READ_UNIT_BYTES)) * (consistent ? 1 : 0.5);
const writeUnits = (size: number) => Math.max(1, Math.ceil(size / WRITE_UNIT_BYTES));

function draw(capacity: Capacity, table: string, key: string | undefined, units: number, index?: string): Draw[] {
  if (key === undefined) return [];
  return [{ table, ...(index ? { index } : {}), key, capacity, units }];
}

/** What a request draws on one item of the table: its partition's draw, naming the item (its sort key). */
function itemDraw(capacity: Capacity, table: string, key: WireItem, units: number): Draw[] {
  const item = keyText(key[TABLE.sortKey]);
  return draw(capacity, table, keyText(key[TABLE.partitionKey]), units).map((d) => (item === undefined ? d : { ...d, item }));
}

/** A read of the item under `key` (its size known from the answer: none yet, the least a read costs). */
export function readDraw(table: string, key: WireItem, consistent: boolean, found?: WireItem): Draw[] {
  return itemDraw('read', table, key, readUnits(itemSize(found), consistent));
}

/** The bytes of an item's entry in index `i` (what it carries of the item), or undefined when the item is not in it. */
function entrySize(i: TableIndex, item: WireItem | undefined): number | undefined {
  if (!item?.[i.partitionKey] || !item[i.sortKey]) return undefined;
  if (i.projection === 'ALL') return itemSize(item);
  const carried = [TABLE.partitionKey, TABLE.sortKey, i.partitionKey, i.sortKey, ...i.projection];
  return itemSize(Object.fromEntries(carried.filter((name) => item[name]).map((name) => [name, item[name]!])));
}

/** A put of `item`: its table partition and the partition of each index it is in. */
export function putDraws(table: string, item: WireItem): Draw[] {
  const units = writeUnits(itemSize(item));
  return [
    ...itemDraw('write', table, item, units),
    ...INDEXES.flatMap((i) => {
      const size = entrySize(i, item);
      return size === undefined ? [] : draw('write', table, keyText(item[i.partitionKey]), writeUnits(size), i.name);
    }),
  ];
}

/** A delete of the item under `key`: its size and its index keys unknown, one unit of its table partition. */
export function deleteDraws(table: string, key: WireItem): Draw[] {
  return itemDraw('write', table, key, 1);
}

/** An item's entry in index `i`: its partition, its key and what it carries, or undefined when the item is not in it. */
function entryOf(i: TableIndex, item: WireItem | undefined) {
  const size = entrySize(i, item);
  if (size === undefined || !item) return undefined;
  const carried =
    i.projection === 'ALL' ? Object.keys(item) : [TABLE.partitionKey, TABLE.sortKey, i.partitionKey, i.sortKey, ...i.projection];
  const content = JSON.stringify([...new Set(carried)].sort().map((name) => [name, item[name] ?? null]));
  return { partition: keyText(item[i.partitionKey])!, sort: JSON.stringify(item[i.sortKey]), size, content };
}

/** A write of one item as DynamoDB bills it, from its images before and after (module comment). */
function imageDraws(table: string, key: WireItem, image: { before?: WireItem; after?: WireItem }): Draw[] {
  const { before, after } = image;
  return [
    ...itemDraw('write', table, key, writeUnits(Math.max(itemSize(before), itemSize(after)))),
    ...INDEXES.flatMap((i) => {
      const was = entryOf(i, before);
      const is = entryOf(i, after);
      if (was && is && was.partition === is.partition && was.sort === is.sort)
        return was.content === is.content ? [] : draw('write', table, is.partition, writeUnits(Math.max(was.size, is.size)), i.name);
      return [
        ...(was ? draw('write', table, was.partition, writeUnits(was.size), i.name) : []),
        ...(is ? draw('write', table, is.partition, writeUnits(is.size), i.name) : []),
      ];
    }),
  ];
}

/** The partitions of the indexes an item is in (a write's admission: the entries it may change). */
export function indexPartitions(table: string, item: WireItem | undefined): Draw[] {
  return INDEXES.flatMap((i) => {
    const entry = entryOf(i, item);
    return entry ? draw('write', table, entry.partition, 1, i.name) : [];
  });
}

/** A write of the item under `key`: as its images tell, when known; else as `estimate` does. */
export function writeOf(table: string, key: WireItem, images: Images | undefined, estimate: () => Draw[]): Draw[] {
  const image = images?.get(imageId(table, key));
  return image ? imageDraws(table, key, image) : estimate();
}

/**
 * An update of the item under `key`: its table partition, and the partition of each index whose key
 * the update sets. The item's size is not in the request: at least its key and the values it sets,
 * or, when the answer returns the whole item (ReturnValues ALL_NEW), that item, with its index keys.
 */
function updateDraws(table: string, update: Wire, output?: Wire): Draw[] {
  const key = update.Key as WireItem;
  const after = update.ReturnValues === 'ALL_NEW' ? (output?.Attributes as WireItem | undefined) : undefined;
  const units = writeUnits(after ? itemSize(after) : itemSize(key) + itemSize((update.ExpressionAttributeValues ?? {}) as WireItem));
  const set = assignments(update.UpdateExpression, update);
  return [
    ...itemDraw('write', table, key, units),
    ...INDEXES.flatMap((i) => {
      const partition = keyText(after?.[i.partitionKey] ?? set.get(i.partitionKey));
      if (i.projection === 'ALL') return draw('write', table, partition, units, i.name);
      const removed = removals(update);
      const entry = writeUnits(entrySize(i, after) ?? 0);
      if ([i.partitionKey, i.sortKey].some((k) => set.has(k)))
        return [...draw('write', table, partition, 1, i.name), ...draw('write', table, partition, entry, i.name)];
      if ([i.partitionKey, i.sortKey].some((k) => removed.includes(k))) return draw('write', table, partition, 1, i.name);
      return i.projection.some((a) => set.has(a) || removed.includes(a)) && entrySize(i, after) !== undefined
        ? draw('write', table, partition, entry, i.name)
        : [];
    }),
  ];
}

/** A Query's partition (from `key = :value` in its key condition) and the size of what it returned. */
function queryDraws(query: Wire, output: Wire | undefined): Draw[] {
  const index = INDEXES.find((i) => i.name === query.IndexName);
  const key = assignments(query.KeyConditionExpression, query).get(index ? index.partitionKey : TABLE.partitionKey);
  const size = total(((output?.Items ?? []) as WireItem[]).map(itemSize));
  // An index is read eventually consistent, whatever the request says.
  const consistent = query.ConsistentRead === true && !index;
  return draw('read', String(query.TableName), keyText(key), readUnits(size, consistent), index?.name);
}

/** One part of a TransactWriteItems: what it draws, before the transaction's doubling. */
export function transactPartDraws(part: Wire, images?: Images): Draw[] {
  const [[kind, body]] = Object.entries(part) as [[string, Wire]];
  const table = String(body.TableName);
  if (kind === 'Put') return writeOf(table, keyOf(body.Item as WireItem), images, () => putDraws(table, body.Item as WireItem));
  const key = body.Key as WireItem;
  if (kind === 'Update') return writeOf(table, key, images, () => updateDraws(table, body));
  return writeOf(table, key, images, () => deleteDraws(table, key)); // Delete, and ConditionCheck (a write of the transaction)
}

export const doubled = (draws: Draw[]) => draws.map((d) => ({ ...d, units: d.units * TRANSACTIONAL }));

/**
 * What a single-item or transactional request consumes: before it is sent (`output` absent: its
 * partitions, a read at the least it costs), or once its answer is known; a write, by its items'
 * images when they are given. Undefined for what the simulator leaves alone (Scan, which reads every
 * partition, and the table's own operations).
 */
export function consumption(operation: string, input: Wire, output?: Wire, images?: Images): Draw[] | undefined {
  const table = String(input.TableName);
  switch (operation) {
    case 'GetItem':
      return readDraw(table, input.Key as WireItem, input.ConsistentRead === true, output?.Item as WireItem | undefined);
    case 'Query':
      return queryDraws(input, output);
    case 'PutItem':
      return writeOf(table, keyOf(input.Item as WireItem), images, () => putDraws(table, input.Item as WireItem));
    case 'UpdateItem':
      return writeOf(table, input.Key as WireItem, images, () => updateDraws(table, input, output));
    case 'DeleteItem':
      return writeOf(table, input.Key as WireItem, images, () => deleteDraws(table, input.Key as WireItem));
    case 'TransactWriteItems':
      return doubled((input.TransactItems as Wire[]).flatMap((part) => transactPartDraws(part, images)));
    case 'TransactGetItems': {
      const found = (output?.Responses ?? []) as { Item?: WireItem }[];
      const gets = (input.TransactItems as { Get: Wire }[]).map(({ Get }) => Get);
      return doubled(gets.flatMap((get, i) => readDraw(String(get.TableName), get.Key as WireItem, true, found[i]?.Item)));
    }
    default:
      return undefined;
  }
}
