import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { quoted } from '#domain/quoted';
import { refusal } from './refusedRanges';
import { MAX_URL_LENGTH } from './limits';
import { onLambda } from './settings';

/**
 * Where a webhook may deliver: over https, to hosts that are public internet addresses and to names
 * that resolve only to such (no request forgery against the service's own network, the cloud's
 * metadata endpoint or anyone's private network). The rules run three times: on the URL as saved
 * (`urlProblem`, no DNS), on every address its name resolves to when saved (`resolutionProblem`),
 * and on the very addresses a delivery connects to (`guardedLookup`), which is what defeats DNS
 * rebinding: a name may answer differently between the check and the connection, the lookup that
 * is checked is the lookup that is used.
 *
 * Transition forms are judged by what they reach: an IPv4-mapped address (::ffff:a.b.c.d) is a
 * socket to the IPv4 address it carries, and the well-known NAT64 prefix (64:ff9b::/96) may carry
 * only public IPv4 addresses (RFC 6052), so both are judged by their IPv4 address. Every other form
 * that embeds an IPv4 address (IPv4-compatible, local-use NAT64, 6to4, Teredo) is refused outright:
 * its relay decides where it goes, and no public receiver needs one.
 */

/** How strict the rules are. A developer's machine may deliver to itself; a deployed stack never. */
export interface TargetPolicy {
  /** http and every address (loopback, private...) allowed: only ever true off AWS Lambda. */
  allowPrivate: boolean;
  /** Off AWS Lambda (a local stack), where a refusal names the setting that would allow it. */
  local?: boolean;
}

/** Every address a name resolves to, as `dns.lookup(name, { all: true })` answers. Tests fake it. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The `code` of the error a guarded lookup fails with when a name resolves to a refused address. */
export const ADDRESS_REFUSED = 'EWEBHOOKADDRESS';

/** Why an address is refused, and on a local stack the setting that would allow it. */
const publicOnly = (policy: TargetPolicy) => `webhooks deliver only to public internet addresses${localHint(policy)}`;
const localHint = (policy: TargetPolicy) =>
  policy.local ? ' (to deliver to this machine, start the local stack with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true)' : '';

/** `WEBHOOKS_ALLOW_PRIVATE_TARGETS=true` lets a local stack deliver to itself; on Lambda it is ignored. */
export function targetPolicy(env: NodeJS.ProcessEnv = process.env): TargetPolicy {
  const local = !onLambda(env);
  return { allowPrivate: env.WEBHOOKS_ALLOW_PRIVATE_TARGETS === 'true' && local, local };
}

/** What is wrong with delivering to the IP address `ip` (as a URL's host or a DNS answer), or undefined. */
export function addressProblem(ip: string, policy: TargetPolicy): string | undefined {
  if (isIP(ip) === 0) return `${ip} is not an IP address`;
  if (policy.allowPrivate) return undefined;
  const what = refusal(ipaddr.parse(ip));
  return what && `${ip} is ${what}; ${publicOnly(policy)}`;
}

/**
 * Names that mean this machine or a private network whatever DNS says (RFC 6761, 6762, 8375, and
 * ICANN's .internal): refused before any lookup, a cheap first defence.
 */
const LOCAL_NAMES = ['localhost', 'localdomain', 'local', 'internal', 'intranet', 'lan', 'home.arpa'];

function localName(hostname: string): boolean {
  return LOCAL_NAMES.some((name) => hostname === name || hostname.endsWith(`.${name}`));
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]/u;

/** A refused URL as a message shows it: any credentials in it cut out first, then quoted the house's way. */
const shown = (raw: string) => quoted(raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1'));

/**
 * What is wrong with `raw` as a webhook's URL without asking DNS, or undefined: its syntax, scheme,
 * credentials, fragment, length, local names and literal addresses. The URL is parsed as WHATWG does
 * (as fetch and every browser would), so `http://0x7f.1/`, `http://2130706433/` and `http://127.1/`
 * are all 127.0.0.1 by the time the host is judged.
 */
export function urlProblem(raw: string, policy: TargetPolicy): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `the URL is ${raw.length} characters long; the limit is ${MAX_URL_LENGTH}`;
  // WHATWG silently drops tabs and line breaks and trims spaces: what is saved must be what is sent.
  if (SPACE_OR_CONTROL.test(raw)) return `${shown(raw)} contains spaces or control characters, which a webhook URL must not`;
  if (!URL.canParse(raw)) return `${shown(raw)} is not an absolute URL; write one such as https://example.com/webhooks`;
  const url = new URL(raw);
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'https' && !(scheme === 'http' && policy.allowPrivate))
    return `${scheme} is not allowed; use https${scheme === 'http' ? localHint(policy) : ''}`;
  // The credentials themselves are never repeated back.
  if (url.username !== '' || url.password !== '')
    return `a user name or password (credentials) before @${url.host} is not allowed in a webhook URL`;
  if (url.href.includes('#')) return `a fragment (${shown(url.hash || '#')}) is not allowed in a webhook URL`;
  if (policy.allowPrivate) return undefined;
  const host = unbracketed(url.hostname);
  if (isIP(host) !== 0) return addressProblem(host, policy);
  const name = host.replace(/\.+$/, '');
  if (localName(name)) return `${host} is a local name; ${publicOnly(policy)}`;
  // A single label is completed by the resolver's search domains: a private name by another route.
  if (!name.includes('.')) return `${host} is not a fully qualified domain name; ${publicOnly(policy)}`;
  return undefined;
}

/** A URL's hostname as DNS and sockets take it: an IPv6 literal without its brackets. */
function unbracketed(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** How long one DNS query may take, and how often it is tried (a name server that never answers costs at most this). */
const DNS_TIMEOUT_MS = 2000;
const DNS_TRIES = 2;

/**
 * Every A and AAAA record of a name, asked of DNS itself (c-ares), within a deadline. Not
 * `dns.lookup`: that is getaddrinfo on libuv's four-thread pool, where four lookups of a name whose
 * server never answers would hold up every other delivery of the process (and it has no timeout).
 */
const resolveBoth: LookupAll = async (hostname) => {
  const { Resolver } = await dns();
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
  const answers = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  if (answers.length === 0 && v4.status === 'rejected') throw v4.reason;
  return answers;
};

/** DNS for the policy: a developer's machine also knows its hosts file (`localhost` and the like), so it asks the system. */
const systemLookup: LookupAll = async (hostname) =>
  targetPolicy().allowPrivate ? (await dns()).lookup(hostname, { all: true }) : resolveBoth(hostname);

/** Node's DNS module, loaded at the first name resolved: routes that only save a URL never resolve one. */
const dns = () => import('node:dns/promises');

/** The rule a name's answers break (any refused address refuses the name), or undefined. */
function answersProblem(hostname: string, answers: { address: string }[], policy: TargetPolicy): string | undefined {
  if (answers.length === 0) return `${hostname} does not resolve to any address`;
  if (policy.allowPrivate) return undefined;
  for (const { address } of answers) {
    const what = isIP(address) === 0 ? 'an invalid address' : refusal(ipaddr.parse(address));
    // The address itself is not echoed: the resolver may know private names the caller should not learn.
    if (what) return `${hostname} resolves to ${what}; ${publicOnly(policy)}`;
  }
  return undefined;
}

/**
 * The save-time check of a URL's host: a literal address is judged as it is, a name by every address
 * it resolves to now. A name that does not resolve (yet, or from where the service runs) is accepted:
 * every delivery resolves it again and connects only to addresses the rules allow (guardedLookup).
 */
export async function resolutionProblem(
  hostname: string,
  policy: TargetPolicy,
  lookup: LookupAll = systemLookup,
): Promise<string | undefined> {
  const host = unbracketed(hostname);
  if (isIP(host) !== 0) return addressProblem(host, policy);
  const answers = await lookup(host).catch(() => []);
  return answers.length === 0 ? undefined : answersProblem(host, answers, policy);
}

function addressRefused(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: ADDRESS_REFUSED });
}

/**
 * A `lookup` for `http.request` that fails (code `EWEBHOOKADDRESS`, the rule as its message) when
 * the name resolves to any refused address, and otherwise hands the socket exactly the addresses it
 * checked. Node asks for every address (`all: true`) when it tries families in turn, for one otherwise.
 */
export function guardedLookup(policy: TargetPolicy, lookup: LookupAll = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    lookup(hostname).then(
      (answers) => {
        const problem = answersProblem(hostname, answers, policy);
        const usable = answers.filter((answer) => family === 0 || answer.family === family);
        const first = usable[0];
        if (problem !== undefined) callback(addressRefused(problem), '');
        else if (first === undefined)
          callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '');
        else if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
