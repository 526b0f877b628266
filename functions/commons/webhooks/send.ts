import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ADDRESS_REFUSED, addressProblem, guardedLookup, type LookupAll, type TargetPolicy, urlProblem } from './addresses';

/**
 * One delivery attempt: a POST to a webhook's URL, under the rules of `addresses.ts`. It never
 * throws for the network's trouble; it says what happened. The URL is checked again (a webhook
 * saved before a rule changed is held to the rule of today), its name is resolved by the guarded
 * lookup (the addresses checked are the addresses connected to), and the connected socket's
 * address is checked once more before a byte is sent. Redirects are not followed: a 3xx is an
 * answer like any other, or a receiver could send the request on to an address the rules refuse.
 */

interface SendOptions {
  policy: TargetPolicy;
  /** The whole attempt: lookup, connection, TLS, request and answer. */
  timeoutMs?: number;
  /** Bytes of the answer read at most; the rest is not waited for. */
  maxResponseBytes?: number;
  lookup?: LookupAll;
}

/**
 * A status means the receiver answered: its body is read only for the deliveries log, so a body cut
 * short (too long, too slow, reset) keeps the status and adds no error. Without a status, `error`
 * says why in a few plain words.
 */
export interface SendResult {
  status?: number;
  error?: string;
  durationMs: number;
  /** The answer's first characters (at most 1,000), when it had a body. */
  response?: string;
  /** How long a 429 or 503 asked to be left alone (its `Retry-After`, seconds or a date), in ms. */
  retryAfterMs?: number;
}

/** A `Retry-After` as RFC 9110 writes it (delay-seconds or an HTTP-date), in ms from `now`; undefined when it is neither. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) || !/[a-z]/i.test(text) ? undefined : Math.max(0, at - now);
}

const TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
const RESPONSE_CHARS = 1000;

/** POST `body` to `target` with `headers` (and its content-length); see the module's comment. */
export function sendWebhook(target: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const problem = urlProblem(target, options.policy);
  if (problem !== undefined) return Promise.resolve({ error: problem, durationMs: durationMs() });

  const url = new URL(target);
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const payload = Buffer.from(body, 'utf8');
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise((resolve) => {
    let settled = false;
    let answer: { status: number; chunks: Buffer[]; retryAfterMs?: number | undefined } | undefined;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // Nothing more is wanted: not the rest of the answer, nor a socket left open for it.
      request.destroy();
      const response = answer && responseText(answer.chunks);
      resolve({
        ...(answer ? { status: answer.status } : { error }),
        ...(response ? { response } : {}),
        ...(answer?.retryAfterMs !== undefined ? { retryAfterMs: answer.retryAfterMs } : {}),
        durationMs: durationMs(),
      });
    };

    const request = send(url, {
      method: 'POST',
      headers: { ...withoutContentLength(headers), 'content-length': String(payload.length) },
      agent: false,
      lookup: guardedLookup(options.policy, options.lookup),
    });
    const deadline = setTimeout(() => finish(`no answer within ${timeoutMs / 1000} s`), timeoutMs);

    request.on('socket', (socket) => {
      // First of the connect listeners, so it runs before the request's body is flushed.
      socket.prependOnceListener('connect', () => {
        const refused = addressProblem(socket.remoteAddress ?? '', options.policy);
        if (refused !== undefined) finish(refused);
      });
    });
    request.on('error', (error) => finish(failure(error, url.hostname)));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      const status = response.statusCode ?? 0;
      const header = response.headers['retry-after'];
      answer = { status, chunks, retryAfterMs: status === 429 || status === 503 ? retryAfterMs(header) : undefined };
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = Math.min(maxBytes, size + chunk.length);
        if (size >= maxBytes) finish();
      });
      response.on('end', () => finish());
      response.on('error', () => finish());
    });
    request.end(payload);
  });
}

function withoutContentLength(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
}

/** The start of the answer as text, cut between characters (never inside a surrogate pair). */
function responseText(chunks: Buffer[]): string {
  const text = Buffer.concat(chunks).toString('utf8');
  return Array.from(text.slice(0, RESPONSE_CHARS * 2))
    .slice(0, RESPONSE_CHARS)
    .join('');
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection closed before an answer',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EAI_AGAIN: 'DNS did not answer',
};

/** A network error in a user's words: the rule for a refused address, else what failed, never a stack. */
function failure(error: NodeJS.ErrnoException, hostname: string): string {
  const code = error.code ?? '';
  if (code === ADDRESS_REFUSED) return error.message;
  if (code === 'ENOTFOUND' || code === 'ENODATA') return `${hostname} does not resolve to any address`;
  const reason = REASONS[code];
  if (reason !== undefined) return reason;
  if (/CERT|SSL|TLS|UNABLE_TO_|EPROTO/.test(code)) return `TLS error (${code})`;
  if (code.startsWith('HPE_')) return 'the answer was not valid HTTP';
  return code === '' ? 'connection failed' : `connection failed (${code})`;
}
