import { type ActivityFollower, followActivities, type FollowOptions, type FollowParams } from './activity.js';
import { type ChosenAnswers, CLIENT_VERSION, OPERATIONS, type Operations } from './generated.js';
import type { AttemptInfo, RetryInfo } from './hooks.js';
import { type Answer, type CallOptions, type Config, send } from './http.js';
import { PagePromise } from './pages.js';
import { ApiPromise, responseOf } from './response.js';
import type { OperationSpec } from './spec.js';

export interface ClientOptions {
  /** The API's base URL, e.g. `https://api.example.com/prod` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A bearer token (`pls_...`). */
  token: string;
  /** The `company_slug` of every call that does not give its own. */
  workspace?: string | undefined;
  /** Each attempt's time limit (default 60 s). */
  timeoutMs?: number | undefined;
  /** Retries after a network failure, a timeout, 408, 429, 500, 502, 503 or 504 (default 2; 0: none); a POST only under its Idempotency-Key. */
  maxRetries?: number | undefined;
  /** The fetch to use (default: the platform's). */
  fetch?: typeof fetch | undefined;
  /** Told of each wait before a retry: the attempt, why, how long (for logs and metrics). */
  onRetry?: ((info: RetryInfo) => void) | undefined;
  /** Told of each attempt once it ended: its status and request id, or the error that stood for no answer, and how long it took. */
  onAttempt?: ((info: AttemptInfo) => void) | undefined;
}

type Params<K extends keyof Operations> = Operations[K]['params'];
/** What a call resolves to: the answer's body, and its entity tag where the route answers one. */
export type Result<K extends keyof Operations> = Operations[K]['answer'] &
  (Operations[K]['tagged'] extends true ? { etag: string | undefined } : unknown);
/** What a conditional read (`ifNoneMatch`) answers when nothing changed (a 304): no body, the tag still current. */
export interface NotModified {
  notModified: true;
  etag: string | undefined;
}
/** A tagged read given `ifNoneMatch` may answer NotModified; nothing else can. */
type Conditional<K extends keyof Operations, O> = Operations[K]['tagged'] extends true
  ? O extends { ifNoneMatch: string }
    ? NotModified
    : never
  : never;
/** An operation whose parameters are all optional may be called without any. */
type Args<K extends keyof Operations, O> =
  Record<never, never> extends Params<K> ? [params?: Params<K>, options?: O] : [params: Params<K>, options?: O];
type Method<K extends keyof Operations> = <O extends CallOptions = CallOptions>(
  ...args: Args<K, O>
) => [Operations[K]['item']] extends [never]
  ? ApiPromise<Result<K> | Conditional<K, O>>
  : PagePromise<Result<K> | Conditional<K, O>, Operations[K]['item']>;

type Chosen = keyof ChosenAnswers<unknown>;
/** A parameter the operation does not take is an error, as it is where the answer does not follow them. */
type Only<P, K extends keyof Operations> = { [X in Exclude<keyof P, keyof Params<K>>]: never };
type ChosenPromise<K extends Chosen, P, O> = [Operations[K]['item']] extends [never]
  ? ApiPromise<ChosenAnswers<P>[K] | Conditional<K, O>>
  : PagePromise<ChosenAnswers<P>[K] | Conditional<K, O>, ChosenAnswers<P>[K]['data'][number]>;
/** A call whose parameters choose its answer (a page or the whole list, of one kind of item or another): typed by those given. */
type ChosenMethod<K extends Chosen> = (Record<never, never> extends Params<K>
  ? () => ChosenPromise<K, Record<never, never>, never>
  : unknown) &
  (<P extends Params<K>, O extends CallOptions = CallOptions>(params: P & Only<P, K>, options?: O) => ChosenPromise<K, P, O>);

/** One method per route, named after it (`listProjects`, `createProject`, ...), and `followActivities`. */
export type Client = { [K in keyof Operations]: K extends Chosen ? ChosenMethod<K> : Method<K> } & {
  followActivities(params: FollowParams, options?: FollowOptions): ActivityFollower;
};

const shape = (spec: OperationSpec, answer: Answer) =>
  answer.status === 304
    ? { notModified: true, etag: answer.etag }
    : spec.tagged
      ? { ...(answer.body as object), etag: answer.etag }
      : (answer.body as object);

/** A client of the API: see the package's README. */
export function createClient(options: ClientOptions): Client {
  if (!options.baseUrl || !options.token) throw new TypeError('createClient needs baseUrl and token');
  const config: Config = {
    baseUrl: options.baseUrl,
    token: options.token,
    workspace: options.workspace,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    onRetry: options.onRetry,
    onAttempt: options.onAttempt,
    userAgent: `project-label-service-client/${CLIENT_VERSION}`,
  };
  const client: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(OPERATIONS) as [string, OperationSpec][]) {
    client[name] = (params: Record<string, unknown> = {}, callOptions: CallOptions = {}) => {
      const call = (extra: Record<string, unknown>) =>
        send(config, spec, { ...params, ...extra }, callOptions).then((a) => ({ data: shape(spec, a), response: responseOf(a) }));
      // The pages after the first follow its cursor (a page number would contradict it).
      return spec.pages ? new PagePromise((cursor) => call(cursor ? { cursor, page: undefined } : {})) : new ApiPromise(call({}));
    };
  }
  client.followActivities = (params: FollowParams, followOptions: FollowOptions = {}) =>
    followActivities(
      (query, ifNoneMatch, signal) => send(config, OPERATIONS.listActivities, query, { ifNoneMatch, signal }),
      params,
      followOptions,
    );
  return client as Client;
}
