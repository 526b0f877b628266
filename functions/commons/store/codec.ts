import { CorruptItem } from './errors';
import type { Item } from './query';
import type { Actor } from '#domain/entities';

/**
 * Typed reads of stored attributes: each returns the attribute with its promised type or throws
 * CorruptItem naming the item and attribute, so no caller ever casts a raw DynamoDB item. For an
 * attribute of a map attribute, pass the map as `from` and the item itself as `of` (for the message).
 * Plain checks, no copies: decoding sits on every read path.
 */
function fail(of: Item, attr: string, expected: string): never {
  throw new CorruptItem(`${String(of.PK)} / ${String(of.SK)}: ${attr} is not ${expected}`);
}

export function str(from: Item, attr: string, of: Item = from): string {
  const v = from[attr];
  return typeof v === 'string' ? v : fail(of, attr, 'a string');
}

export function optStr(from: Item, attr: string, of: Item = from): string | undefined {
  const v = from[attr];
  return v === undefined || typeof v === 'string' ? v : fail(of, attr, 'a string');
}

export function num(from: Item, attr: string, of: Item = from): number {
  const v = from[attr];
  return typeof v === 'number' ? v : fail(of, attr, 'a number');
}

export function optNum(from: Item, attr: string, of: Item = from): number | undefined {
  const v = from[attr];
  return v === undefined || typeof v === 'number' ? v : fail(of, attr, 'a number');
}

export function bool(from: Item, attr: string, of: Item = from): boolean {
  const v = from[attr];
  return typeof v === 'boolean' ? v : fail(of, attr, 'a boolean');
}

export function oneOf<T extends string>(from: Item, attr: string, values: readonly T[], of: Item = from): T {
  const v = from[attr];
  return typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : fail(of, attr, `one of ${values.join(', ')}`);
}

export function strings(from: Item, attr: string, of: Item = from): string[] {
  const v = from[attr];
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : fail(of, attr, 'a list of strings');
}

export function map(from: Item, attr: string, of: Item = from): Item {
  const v = from[attr];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Item) : fail(of, attr, 'a map');
}

/** The actor stored under `attr`, or undefined on items written before actors were recorded. */
export function optActor(from: Item, attr: string): Actor | undefined {
  if (from[attr] === undefined) return undefined;
  const m = map(from, attr);
  const actor: Actor = { username: str(m, 'username', from), name: str(m, 'name', from) };
  if (typeof m.request_id === 'string') actor.request_id = m.request_id;
  if (typeof m.idempotency_key === 'string') actor.idempotency_key = m.idempotency_key;
  return actor;
}
