import type { Answer } from './http.js';

/** What a call's answer said besides its body: for logs, support and idempotency. */
export interface ResponseInfo {
  status: number;
  headers: Headers;
  /** `X-Request-Id`: what support asks for. */
  requestId: string | undefined;
  /** Whether a POST's answer was replayed from its Idempotency-Key (`Idempotent-Replayed: true`): the request had gone through before. */
  replayed: boolean;
}

export const responseOf = (answer: Answer): ResponseInfo => ({
  status: answer.status,
  headers: answer.headers,
  requestId: answer.headers.get('x-request-id') ?? undefined,
  replayed: answer.headers.get('idempotent-replayed') === 'true',
});

/**
 * A call: a real `Promise` of its answer's body (`then`, `catch`, `finally`, `instanceof Promise`), and
 * `withResponse()` for the body with what else the answer said (status, headers, request id, replayed).
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #answer: Promise<{ data: T; response: ResponseInfo }>;

  // Its `then` is its own: the base promise is never settled, nor used.
  static override get [Symbol.species]() {
    return Promise;
  }

  constructor(answer: Promise<{ data: T; response: ResponseInfo }>) {
    super(() => undefined);
    this.#answer = answer;
  }

  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#answer.then((a) => a.data).then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  /** The body, and the response it came in. */
  withResponse(): Promise<{ data: T; response: ResponseInfo }> {
    return this.#answer;
  }
}
