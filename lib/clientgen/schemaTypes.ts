/**
 * JSON Schema (as the OpenAPI and AsyncAPI documents write it) to the text of a TypeScript type, for the
 * client's generated declarations: objects, arrays, unions, enums and constants, `$ref`s by their
 * component's name. What a type cannot say (patterns, bounds, formats) the server checks.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const union = (parts: string[]) => [...new Set(parts)].join(' | ') || 'never';

/** The name a `$ref` points at (`#/components/schemas/Project` -> `Project`). */
export const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** The TypeScript type of `schema`; `optionalAll` makes every property optional (a request's parameters). */
export function typeOf(schema: Json | undefined, optionalAll = false): string {
  if (!schema || Object.keys(schema).filter((k) => k !== 'description').length === 0) return 'unknown';
  if (schema.$ref) return refName(schema.$ref);
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((v: unknown) => JSON.stringify(v)));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return union(alternatives.map((s: Json) => typeOf(s)));
  if (schema.allOf) return schema.allOf.map((s: Json) => typeOf(s)).join(' & ');
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? (schema.properties ? 'object' : 'unknown')];
  return union(types.map((t) => single(schema, t, optionalAll)));
}

function single(schema: Json, type: string, optionalAll: boolean): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(schema.items)}>`;
    case 'object':
      return objectType(schema, optionalAll);
    default:
      return 'unknown';
  }
}

function objectType(schema: Json, optionalAll: boolean): string {
  const required = new Set<string>(optionalAll ? [] : (schema.required ?? []));
  const members = Object.entries((schema.properties ?? {}) as Record<string, Json>).map(
    ([name, s]) => `${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(s)}`,
  );
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') members.push(`[key: string]: ${typeOf(extra)}`);
  else if (members.length === 0) return 'Record<string, unknown>';
  return `{ ${members.join('; ')} }`;
}
