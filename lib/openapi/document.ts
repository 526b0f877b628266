import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { PROBLEMS, type Problem as ProblemDetails, type ProblemCode } from '#wire/problems';
import { IDEMPOTENCY_KEY_SHAPE } from '#domain/limits';
import { SLUG } from '#domain/slugs';
import { DEFAULT_RATE_LIMIT } from '#domain/tokens';
import { problemBody } from '#http/problem';
import { routes, type Route } from '#http/routes';
import { CONTACT, LICENSE_IDENTIFIER, LICENSE_NAME } from '#lib/documentInfo';
import { componentSchemaOf } from '#lib/jsonSchema';
import { repoRoot } from '#lib/paths';
import { Problem } from '#wire/answers';
import { refusalDetail } from '#wire/tokenRefusals';
import { apiDocs } from './apiDocs';
import { parametersOf, type WorkspaceFrom } from './parameters';
import { SERVERS } from './servers';

/**
 * The OpenAPI 3.1 document of the API, built from the route table, each route's own input schema
 * (zod, as the handler validates it), its answer (the row's, declared in wire/answers.ts) and what
 * docs/api.md says of it (its description and its tag's, ./apiDocs.ts). `npm run openapi` writes it to
 * openapi.json; a test fails when that file is stale.
 */

// The document is plain JSON, walked and built freely (its shape is checked by the OpenAPI schema test).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** Where `npm run openapi` writes the document, relative to the repository root. */
export const OPENAPI_FILE = 'openapi.json';

/** The problems a route can answer, by status: the catalogue's, as every function and the gateway answer them. */
function problemStatuses(route: Route): number[] {
  const statuses = new Set([400, 401, 403, 404, 413, 415, 422, 429, 500, 502, 503, 504]);
  if (route.method !== 'GET') statuses.add(409);
  if (route.method === 'PUT' || route.method === 'DELETE') statuses.add(412);
  // The history's sync token, kept past the retention.
  if (route.name === 'list-activities') statuses.add(410);
  return [...statuses].sort((a, b) => a - b);
}

const statusTitle = (status: number) => Object.values(PROBLEMS).find((p) => p.status === status)?.title ?? 'Error';

/** What an example of each problem says (the catalogue gives its status, title and error_code). */
const EXAMPLE_DETAILS: Record<ProblemCode, string> = {
  bad_request: 'The request could not be understood.',
  malformed_json: 'The body is not valid JSON.',
  unauthorized: refusalDetail('unknown'),
  forbidden: 'The token does not grant this workspace, this scope, or the read scope of the data the route answers or carries.',
  not_found: 'No project with slug "website-redesign" in this workspace.',
  method_not_allowed: 'PATCH is not a method of /projects/{slug}: it takes GET, PUT, DELETE, OPTIONS (the Allow header lists them).',
  conflict: 'A label titled "Bug" already exists in this workspace.',
  gone: 'The sync token is older than the history keeps (90 days); start again with since, from the newest time you handled.',
  precondition_failed: 'The resource has changed since the ETag given in If-Match; read it again (GET) and retry with its new ETag.',
  payload_too_large: 'The body is 70000 bytes; the limit is 65536.',
  request_header_fields_too_large: 'The request headers are too large.',
  unsupported_media_type: 'Send the body as application/json.',
  validation_failed: 'title is required: text of 1 to 50 characters',
  rate_limited: 'Too many requests for this token, or for its workspace; retry after the time in Retry-After.',
  internal_error: 'Something went wrong on our side; the request id identifies it in the logs.',
  authorizer_error: 'The token could not be checked; retry shortly.',
  bad_gateway: 'The function answered with something that is not a response.',
  service_unavailable: 'The database is busy; retry shortly.',
  gateway_timeout: 'The function did not answer in time.',
};

/** The problems `used` as the service renders them (components.examples): a real code, error_code and status. */
function problemExampleComponents(used: Set<ProblemCode>): Json {
  return Object.fromEntries(
    (Object.keys(PROBLEMS) as ProblemCode[])
      .filter((code) => used.has(code))
      .map((code) => {
        const problem: ProblemDetails = { code, detail: EXAMPLE_DETAILS[code] };
        if (code === 'validation_failed') problem.errors = [{ field: 'title', message: 'title is required: text of 1 to 50 characters' }];
        return [code, { summary: PROBLEMS[code].title, value: JSON.parse(problemBody(problem, '8d3f7c1e-4b2a-4f5e-9c61-0a7b2d9e5f34')) }];
      }),
  );
}

/** The examples of an answer of `status`: each problem of the catalogue with that status (added to `used`). */
function problemExamples(status: number, used: Set<ProblemCode>): Json {
  const codes = (Object.keys(PROBLEMS) as ProblemCode[]).filter((code) => PROBLEMS[code].status === status);
  for (const code of codes) used.add(code);
  return Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]));
}

/** JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a zod schema, its named parts moved to components. */
const jsonSchemaOf = (schema: z.ZodType, io: 'input' | 'output', components: Json) =>
  componentSchemaOf(schema, { io, target: 'draft-2020-12' }, components);

interface Handler {
  inputSchema: z.ZodType;
  anyWorkspace: boolean;
}

async function handlerOf(route: Route): Promise<Handler> {
  return ((await import(pathToFileURL(join(repoRoot, route.handler)).href)) as { handler: Handler }).handler;
}

/** `company_slug` in a body: the query string's, said once (the parameter's description says where else). */
const BODY_WORKSPACE: Json = {
  type: 'string',
  pattern: SLUG.source,
  description: "The workspace's slug: here or in the query string (`company_slug`); one of them is required, both and different: 422",
};

const HEADERS: Json = {
  'X-Request-Id': { description: 'The id of the request (the `request_id` of a problem)', schema: { type: 'string' } },
  'Cache-Control': { description: 'Always `no-store`', schema: { type: 'string', const: 'no-store' } },
};

export async function buildOpenApi(): Promise<Json> {
  const components: Json = {};
  jsonSchemaOf(Problem, 'output', components); // registers the Problem component the responses reference
  const paths: Json = {};
  const docs = apiDocs();
  const tags = new Set<string>();
  const usedExamples = new Set<ProblemCode>();
  for (const route of routes) {
    const answer = route.answer;
    const tag = route.scope.split(':')[0]!; // what the route acts on, as its scope names it: projects, labels
    tags.add(tag);
    const handler = await handlerOf(route);
    const input = jsonSchemaOf(handler.inputSchema, 'input', components);
    const body = input.properties?.body as Json | undefined;
    const workspace: WorkspaceFrom = handler.anyWorkspace ? 'optional' : body ? 'query or body' : 'query';
    const responses: Json = {
      [answer.status]: {
        description: answer.description,
        headers: {
          ...HEADERS,
          ...(answer.status === 201 ? { Location: { description: 'Where the new resource is read', schema: { type: 'string' } } } : {}),
          ...(route.method === 'POST'
            ? {
                'Idempotent-Replayed': {
                  description: '`true` on the replay of a kept answer (Idempotency-Key)',
                  schema: { type: 'string' },
                },
              }
            : {}),
          ...(route.tagged ? { ETag: { description: 'Strong entity tag of the resource', schema: { type: 'string' } } } : {}),
        },
        content: { 'application/json': { schema: jsonSchemaOf(answer.schema, 'output', components) } },
      },
    };
    const conditionalGet = route.tagged && route.method === 'GET';
    if (conditionalGet) {
      responses[304] = { description: 'Not modified (If-None-Match matched the ETag)', headers: { ETag: { schema: { type: 'string' } } } };
    }
    for (const status of problemStatuses(route)) {
      responses[status] = {
        description: statusTitle(status),
        ...(status === 429 || status === 503 || status === 409
          ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } } }
          : {}),
        content: {
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples: problemExamples(status, usedExamples) },
        },
      };
    }
    const headerParams: Json[] = [];
    if (route.method === 'POST')
      headerParams.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Retries with the same key and request replay the first answer for 24 hours',
        schema: { type: 'string', pattern: IDEMPOTENCY_KEY_SHAPE.source },
      });
    if (route.method === 'PUT' || route.method === 'DELETE')
      headerParams.push({ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } });
    if (conditionalGet) headerParams.push({ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } });
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.name,
      tags: [tag],
      summary: docs.summary(route.method, route.path),
      description: docs.operation(route.method, route.path),
      security: [{ bearer: [] }],
      'x-scope': route.scope,
      // The read scope of what it answers, needed beside x-scope (a write answers what it wrote).
      ...(route.reads ? { 'x-reads': route.reads } : {}),
      parameters: [...parametersOf(input, workspace), ...headerParams],
      ...(body
        ? {
            requestBody: {
              // Required only when the body has a required member: attach, toggle and updates are sent without one.
              required: ((body.required as string[] | undefined) ?? []).length > 0 && route.method !== 'DELETE',
              content: {
                'application/json': { schema: { ...body, properties: { ...body.properties, company_slug: BODY_WORKSPACE } } },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Project and Label Management Service',
      version: '1.0.0',
      description:
        'Workspace projects and labels. Every request carries a bearer token and names its workspace (`company_slug`). ' +
        `Each token has a rate limit (default ${DEFAULT_RATE_LIMIT.rate} requests per second, burst ${DEFAULT_RATE_LIMIT.burst}). ` +
        'Every error is `application/problem+json` (RFC 9457).',
      contact: CONTACT,
      license: { name: LICENSE_NAME, identifier: LICENSE_IDENTIFIER },
    },
    servers: SERVERS,
    tags: [...tags].map((name) => ({ name, description: docs.tag(name) })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      examples: problemExampleComponents(usedExamples),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'pls_<id>_<secret>' } },
    },
  };
}
