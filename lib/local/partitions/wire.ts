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

/** `name = :value` pairs of an expression, names resolved (`#n`) and values looked up. */
export function assignments(expression: unknown, input: Wire): Map<string, Value> {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as WireItem;
  const found = new Map<string, Value>();
  for (const [, name, placeholder] of String(expression ?? '').matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const value = values[placeholder!];
    if (value) found.set(names[name!] ?? name!, value);
  }
  return found;
}

/** The attributes an update expression's REMOVE clause names, names resolved (`#n`). */
export function removals(update: Wire): string[] {
  const names = (update.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const clause = /\bREMOVE\s+(.*?)(?=\s+(?:SET|ADD|DELETE)\s|$)/i.exec(String(update.UpdateExpression ?? ''));
  return (clause?.[1] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => names[n] ?? n);
}
