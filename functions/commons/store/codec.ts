import { CorruptItem } from './errors';
import type { Item } from './query';

/**
 * Typed reads of stored attributes: each returns the attribute with its promised type or throws
 * CorruptItem naming the item and attribute, so no caller ever casts a raw DynamoDB item.
 */
function fail(item: Item, attr: string, expected: string): never {
  throw new CorruptItem(`${String(item.PK)} / ${String(item.SK)}: ${attr} is not ${expected}`);
}

export function str(item: Item, attr: string): string {
  const v = item[attr];
  return typeof v === 'string' ? v : fail(item, attr, 'a string');
}

export function optStr(item: Item, attr: string): string | undefined {
  return item[attr] === undefined ? undefined : str(item, attr);
}

export function num(item: Item, attr: string): number {
  const v = item[attr];
  return typeof v === 'number' ? v : fail(item, attr, 'a number');
}

export function bool(item: Item, attr: string): boolean {
  const v = item[attr];
  return typeof v === 'boolean' ? v : fail(item, attr, 'a boolean');
}

export function oneOf<T extends string>(item: Item, attr: string, values: readonly T[]): T {
  const v = str(item, attr);
  return (values as readonly string[]).includes(v) ? (v as T) : fail(item, attr, `one of ${values.join(', ')}`);
}

export function strings(item: Item, attr: string): string[] {
  const v = item[attr];
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : fail(item, attr, 'a list of strings');
}

/** A map attribute, readable with the functions above (errors name it as `SK.attr`). */
export function map(item: Item, attr: string): Item {
  const v = item[attr];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(item, attr, 'a map');
  return { ...(v as Item), PK: item.PK, SK: `${String(item.SK)}.${attr}` };
}
