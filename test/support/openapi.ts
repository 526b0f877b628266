import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { matchPath } from '#http/route';
import { routes } from '#http/routes';
import { withRefsMoved } from '#lib/jsonSchema';
import { OPENAPI_FILE } from '#lib/openapi/document';
import { repoRoot } from '#lib/paths';

/**
 * Every answer the suites get from the API, checked against the committed openapi.json: its status
 * must be documented for the route, its content type one the document gives, and its body valid
 * against the document's schema (Ajv, JSON Schema 2020-12, as OpenAPI 3.1 uses it; formats checked).
 * An answer of a path no route serves must be a documented Problem.
 */
const COMPONENTS_ID = 'https://project-label-service.dev/openapi.json/components';
const doc = JSON.parse(readFileSync(join(repoRoot, OPENAPI_FILE), 'utf8')) as Record<string, any>;

/** The document's `#/components/schemas/X` references, pointed at the components schema Ajv holds. */
const withAjvRefs = (value: unknown) => withRefsMoved(value, '#/components/schemas/', `${COMPONENTS_ID}#/$defs/`);

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: COMPONENTS_ID, $defs: withAjvRefs(doc.components.schemas) });

const compiled = new Map<object, ValidateFunction>();
function validatorOf(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(withAjvRefs(schema) as object);
    compiled.set(schema, v);
  }
  return v;
}

export function checkAnswer(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  text: string,
  headers?: Pick<Headers, 'has'>,
): void {
  const pathname = new URL(url, 'http://x').pathname;
  const route = routes.find((r) => r.method === method && matchPath(r.path, pathname));
  const where = `${method} ${pathname} ${status}`;
  const fail: (why: string) => never = (why) => {
    throw new Error(`openapi.json: ${where}: ${why}\n${text.slice(0, 500)}`);
  };
  const type = contentType?.split(';')[0]?.trim() ?? '';
  if (!route) {
    if (method === 'OPTIONS' && status === 204) return; // CORS preflight, answered by the gateway
    // The emulator's own endpoints (inbound events) and the document and its page: not the API.
    if (
      pathname.startsWith('/__local/') ||
      pathname === '/openapi.json' ||
      pathname === '/asyncapi.json' ||
      pathname === '/docs' ||
      pathname.startsWith('/docs/')
    ) {
      if (status === 200) return;
    }
    if (type !== 'application/problem+json') fail(`an unrouted answer that is not a problem (${type})`);
    const problem = validate(validatorOf(doc.components.schemas.Problem), text, fail);
    if ((problem as { status?: unknown }).status !== status) fail("the problem's status is not the answer's");
    return;
  }
  const response = doc.paths[route.path]?.[method.toLowerCase()]?.responses?.[String(status)];
  if (!response) fail('status not documented for this operation');
  if (!response.content) {
    if (text !== '') fail('a body where the document gives none');
    return;
  }
  if (!response.content[type]) fail(`content type ${type} not documented (${Object.keys(response.content).join(', ')})`);
  const body = validate(validatorOf(response.content[type].schema), text, fail);
  if (type === 'application/problem+json' && (body as { status?: unknown }).status !== status)
    fail("the problem's status is not the answer's");
  for (const name of Object.keys(response.headers ?? {}).filter((h) => REQUIRED_HEADERS.has(h)))
    if (headers && !headers.has(name)) fail(`the ${name} header the document gives is missing`);
}

/** Headers the document gives an answer that must be on it whenever that answer is given. */
const REQUIRED_HEADERS = new Set(['Location', 'ETag', 'X-Request-Id', 'Cache-Control']);

function validate(validator: ValidateFunction, text: string, fail: (why: string) => never): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail('the body is not JSON');
  }
  if (!validator(body)) fail(ajv.errorsText(validator.errors, { separator: '; ' }));
  return body;
}
