/** What the client tells its hooks (createClient's `onAttempt` and `onRetry`): for logs and metrics. */

/** One attempt of a call, once it ended: answered (its status and request id) or not (the error that stands for no answer). */
export interface AttemptInfo {
  method: string;
  url: string;
  /** The call's attempts so far, this one included (1 the first). */
  attempt: number;
  /** From sending to the answer's end (milliseconds). */
  durationMs: number;
  status?: number;
  requestId?: string;
  error?: Error;
}

/** What a hook is told of one wait before a retry. */
export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt that failed (1 the first). */
  attempt: number;
  /** How long the call waits before the next (milliseconds). */
  waitMs: number;
  /** Why: the status answered, or the error that stood for no answer. */
  status?: number;
  error?: Error;
}

/** The AttemptInfo of an attempt sent at `started` that ended in `outcome`. */
export function attemptInfo(
  method: string,
  url: string,
  attempt: number,
  started: number,
  outcome: { response: Response } | Error,
): AttemptInfo {
  const info = { method, url, attempt, durationMs: Date.now() - started };
  if (outcome instanceof Error) return { ...info, error: outcome };
  const requestId = outcome.response.headers.get('x-request-id');
  return { ...info, status: outcome.response.status, ...(requestId ? { requestId } : {}) };
}
