import { TABLE } from '#store/table';

/** DynamoDB's requests and answers as the wire carries them: the JSON the partition simulator and the capacity model read. */

/** A request or an answer as JSON: the wire's own shapes. */
export type Wire = Record<string, unknown>;
/** An AttributeValue: { S: "..." }, { N: "1" }, { M: {...} }, ... */
export type Value = Record<string, unknown>;
/** An item (or a key) as the wire carries it. */
export type WireItem = Record<string, Value>;

/** The key of an item (the table's keys). */
export const keyOf = (item: WireItem): WireItem => ({
  [TABLE.partitionKey]: item[TABLE.partitionKey]!,
  [TABLE.sortKey]: item[TABLE.sortKey]!,
});
