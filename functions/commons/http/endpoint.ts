import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Actor } from '#domain/entities';
import { ValidationFailed } from '#domain/errors';
import { JsonText } from '#domain/quoted';
import { Refused } from '#wire/problems';
import { malformedJsonDetail } from '#wire/jsonSyntax';
import { nestsDeeperThan } from '#domain/jsonDepth';
import { MAX_JSON_DEPTH } from '#domain/limits';
import type { Scope } from '#domain/scopes';
import { CORS_PREFLIGHT } from './cors';
import { etagOf, notModified } from './etags';
import { standardHeaders } from './headers';
import type { IdempotencyKeys } from './idempotency';
import { recordedKeyOf } from './idempotencyKeys';
import { locationFor } from './location';
import { namedEntities } from './namedEntities';
import { noteProblem, noteWorkspace, observe } from './observe';
import { principalOf, requireScope, requireScopes, requireWorkspace, type Principal } from './principal';
import { problemOf, problemResponse } from './problem';
import { queryOf } from './query';
import { parseInput, workspaceSlug } from '#wire/validation';
import { withinWorkspaceRateLimits } from '#domain/workspaceRateLimits';

const MAX_BODY_BYTES = 64 * 1024;

interface RequestContext {
  /** The workspace the request names (`company_slug`); empty on an `anyWorkspace` route that names none. */
  workspace: string;
  /** The workspaces the request may read: the named one, or every one the token is granted. */
  workspaces: string[];
  principal: Principal;
  /** Who makes the change, and by which request (its id and Idempotency-Key): what a write records as its actor. */
  actor: Actor;
  requestId: string;
  /** The request's If-Match, for a PUT or DELETE to make its write conditional (http/etags.ts). */
  ifMatch?: string | undefined;
}

export interface Reply {
  status: 200 | 201;
  data?: unknown;
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** A single resource's answer: tagged (ETag), and a GET answers 304 to a matching If-None-Match. */
  tagged?: boolean;
}

export const ok = (data: unknown, meta?: Record<string, unknown>): Reply => ({ status: 200, data, ...(meta ? { meta } : {}) });
/** A single resource (a read or an update's answer), with its entity tag. */
export const resource = (data: unknown): Reply => ({ status: 200, data, tagged: true });
export const created = (data: unknown, location: string): Reply => ({ status: 201, data, headers: { Location: location } });

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

/**
 * Turns every error into problem+json. Registered right after CORS: middy runs onError handlers in
 * reverse order, so this one sees every later middleware's error and CORS still adds its headers.
 */
const problemErrors = (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: async (request: Request) => {
    const problem = problemOf(request.error);
    noteProblem(request.event, problem.code);
    request.response = problemResponse(problem, request.context?.awsRequestId ?? 'unknown');
  },
});

/**
 * The route's scope, and the read scope of what its answer carries, before anything else is looked at:
 * a caller without them learns nothing more.
 */
const authorize = (scope: Scope, reads: Scope | undefined): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: async (request: Request) => {
    const principal = principalOf(request.event);
    requireScope(principal, scope);
    if (reads !== undefined) requireScopes(principal, [reads], "which this route's answer carries");
  },
});

const jsonParser = httpJsonBodyParser();
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Bodies are UTF-8 JSON as sent: no content coding (gzip and the like), no other declared charset. */
function checkEncoding(headers: APIGatewayProxyEvent['headers']): void {
  const coding = headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity')
    throw new Refused('unsupported_media_type', `Content-Encoding ${coding} is not supported; send the body uncompressed.`);
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8')
    throw new Refused('unsupported_media_type', `The body must be UTF-8 JSON, not ${charset}.`);
}

/**
 * Size limit (413), content type (415) and JSON syntax (400, naming where it breaks), then middy's JSON body parser.
 * An absent or empty body is left undefined: the route's schema decides whether it needs one.
 */
const jsonBody = (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: async (request: Request) => {
    const { event } = request;
    if (event.body === null || event.body === undefined || event.body === '') {
      (event as { body: unknown }).body = undefined;
      return;
    }
    const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : undefined;
    const bytes = raw ? raw.length : Buffer.byteLength(event.body);
    if (bytes > MAX_BODY_BYTES) throw new Refused('payload_too_large', `The body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES}.`);
    checkEncoding(event.headers);
    if (raw) {
      // Bytes as sent (binary passthrough): they must be UTF-8, never silently repaired.
      try {
        event.body = utf8.decode(raw);
      } catch {
        throw new Refused('malformed_json', 'The body is not valid UTF-8.');
      }
      event.isBase64Encoded = false;
    }
    if (nestsDeeperThan(event.body, MAX_JSON_DEPTH)) {
      const rule = `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH}`;
      throw ValidationFailed.of('body', rule, new JsonText(event.body));
    }
    try {
      await jsonParser.before!(request as never);
    } catch (error) {
      if ((error as Error).message === 'Unsupported Media Type') {
        throw new Refused('unsupported_media_type', 'Send the body as application/json.');
      }
      // Where it breaks, and what JSON wants there (line and column), as the body's author can find it.
      throw new Refused('malformed_json', malformedJsonDetail(String(event.body)));
    }
  },
});

export interface EndpointSpec<S extends z.ZodMiniType> {
  scope: Scope;
  /** The read scope of the data its answer carries, where `scope` does not grant it (a write answers what it wrote). */
  reads?: Scope;
  /** Validates `{ path, query, body }`; its output is what `run` receives. */
  input: S;
  /** `company_slug` may be left out: the request then reads every workspace the token is granted. */
  anyWorkspace?: boolean;
  /** Every POST route passes `idempotencyKeys` (http/idempotency.ts): a repeated key replays the first answer. */
  idempotency?: IdempotencyKeys;
  run: (input: z.output<S>, ctx: RequestContext) => Promise<Reply>;
}

/**
 * A Lambda handler for one route: the shared middleware stack around one endpoint function.
 * The route's input schema rides along as `inputSchema`, so tests can generate inputs from it, and the
 * OpenAPI document says whether the route needs `company_slug` (`anyWorkspace`).
 */
export function endpoint<S extends z.ZodMiniType>(spec: EndpointSpec<S>) {
  // No early-timeout race: it arms a timer on every invocation, and an answer cut short by it would
  // be a 5xx anyway; each function's own timeout (and API Gateway's 29 s) bound a request.
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>({ timeoutEarlyInMillis: 0 })
    // Registered first so that its after/onError run last: one log line and metrics per answer.
    .use(observe())
    // Cache-Control, nosniff and X-Request-Id on every answer, problems included.
    .use(standardHeaders())
    // Then CORS, so that its after/onError add their headers to every response including errors.
    .use(
      httpCors({
        origins: (process.env.CORS_ORIGINS || '*').split(','),
        exposeHeaders: CORS_PREFLIGHT.exposeHeaders.join(', '),
        disableBeforePreflightResponse: true,
      }),
    )
    .use(problemErrors())
    .use(httpHeaderNormalizer())
    .use(authorize(spec.scope, spec.reads))
    .use(jsonBody())
    .handler(async (event, context) => {
      const principal = principalOf(event);
      const body = (event as { body: unknown }).body;
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw ValidationFailed.of('body', "is not a JSON object; send the request's fields as members of one object", body);
      }
      // Repeated keys taken whole (lists) or refused (http/query.ts); what follows, the Idempotency-Key's
      // fingerprint included, reads the query as the route does.
      const query = queryOf(event);
      event.queryStringParameters = Object.keys(query).length ? query : null;
      // One rule for every route: from the query, or the body; both and different is a 422.
      const bodyWorkspace = (body as Record<string, unknown> | undefined)?.company_slug;
      const named = !spec.anyWorkspace || query.company_slug !== undefined || bodyWorkspace !== undefined;
      const workspace = named ? workspaceSlug(query.company_slug, bodyWorkspace) : '';
      if (named) {
        requireWorkspace(principal, workspace);
        noteWorkspace(event, workspace);
      }
      const key = spec.idempotency?.keyOf(event);
      const input = parseInput(spec.input, { path: event.pathParameters ?? {}, query, body: body ?? {} });
      const workspaces = named ? [workspace] : principal.workspaces;
      const ifMatch = event.headers['if-match'];
      const requestId = context.awsRequestId;
      const actor = actorOf(principal, requestId, key ?? recordedKeyOf(event));
      const answer = async () =>
        render(
          await spec.run(input, { workspace, workspaces, principal, actor, requestId, ifMatch }),
          event.httpMethod === 'GET' ? event.headers['if-none-match'] : undefined,
        );
      // Keys belong to the token: two tokens never replay each other's answers, whatever their usernames.
      const owner = `token:${principal.tokenId}`;
      // A valid request counts toward its workspace's rate limits, and is refused past them (domain/workspaceRateLimits.ts).
      const within = await withinWorkspaceRateLimits(workspace, `${event.httpMethod} ${event.resource}`, namedEntities(event, body), () =>
        key === undefined || spec.idempotency === undefined
          ? answer()
          : spec.idempotency.run({ ws: workspace, owner, key, requestId, event, body: body ?? null }, answer),
      );
      if (!within.ran) throw new Refused('rate_limited', `The workspace ${workspace} is over its rate limits.`, { 'Retry-After': '1' });
      // A kept answer holds its Location from the API's root: a replay resolves it against the URL it was sent to.
      return located(within.result, event);
    });
  return Object.assign(handler, {
    inputSchema: spec.input,
    scopes: spec.reads === undefined ? [spec.scope] : [spec.scope, spec.reads],
    takesIdempotencyKeys: spec.idempotency !== undefined,
    anyWorkspace: spec.anyWorkspace === true,
  });
}

function actorOf(principal: Principal, requestId: string, idempotencyKey: string | undefined): Actor {
  const { name, username } = principal.owner;
  return { username, name, request_id: requestId, ...(idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey }) };
}

/** An answer whose Location, given from the API's root, is put behind the base of the URL called. */
function located(result: APIGatewayProxyResult, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  const location = result.headers?.Location;
  return typeof location === 'string' ? { ...result, headers: { ...result.headers, Location: locationFor(location, event) } } : result;
}

function render(reply: Reply, ifNoneMatch: string | undefined): APIGatewayProxyResult {
  // A resource's tag is its data's (what If-Match compares); a page's covers its meta too: a cursor that
  // appears on the same entries is a new answer, never a 304.
  const etag = reply.tagged ? etagOf(reply.meta ? { data: reply.data, meta: reply.meta } : reply.data) : undefined;
  if (etag !== undefined && notModified(ifNoneMatch, etag)) return { statusCode: 304, headers: { ETag: etag }, body: '' };
  return {
    statusCode: reply.status,
    headers: { 'Content-Type': 'application/json', ...reply.headers, ...(etag === undefined ? {} : { ETag: etag }) },
    body: JSON.stringify({ data: reply.data, ...(reply.meta ? { meta: reply.meta } : {}) }),
  };
}
