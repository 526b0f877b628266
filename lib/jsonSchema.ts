import * as z from 'zod';

/**
 * JSON Schema from zod for the API's documents: the OpenAPI document (draft 2020-12, as OpenAPI 3.1
 * uses it) and the events' AsyncAPI document (draft 7, the base of AsyncAPI's schema format). Named
 * schemas (`.meta({ id })`) become the document's components and are referenced from where they are used.
 */

// The schemas are plain JSON, walked and built freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** `value` with every `$ref` that starts with `from` starting with `to` instead (a copy). */
export function withRefsMoved(value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withRefsMoved(v, from, to));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace(from, to) : withRefsMoved(v, from, to)]),
  );
}

/** Where each draft keeps the named schemas zod writes beside the one asked for. */
const DEFINITIONS = { 'draft-2020-12': '$defs', 'draft-7': 'definitions' } as const;

/**
 * The JSON Schema of a zod schema (the input it accepts or the output it gives), its named parts put
 * into `components` (a document's `components.schemas`) and referenced as `#/components/schemas/<id>`.
 */
export function componentSchemaOf(
  schema: z.core.$ZodType,
  opts: { io: 'input' | 'output'; target: keyof typeof DEFINITIONS },
  components: Json,
): Json {
  const out = z.toJSONSchema(schema, { ...opts, unrepresentable: 'any' }) as Json;
  const key = DEFINITIONS[opts.target];
  const { $schema: _, [key]: named, ...rest } = withRefsMoved(out, `#/${key}/`, '#/components/schemas/') as Json;
  for (const [id, def] of Object.entries((named ?? {}) as Json)) components[id] = def;
  return rest;
}
