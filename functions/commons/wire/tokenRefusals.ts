import { BEARER_HEADER } from '#domain/tokens';

/**
 * What a 401 says: which of its causes it is and how to make a token, in sentences the local gateway,
 * the authorizer and the deployed gateway's responses share. An unknown and a revoked token share
 * one (and so does a well-formed token whose secret is wrong), so a guesser learns nothing of which
 * ids exist; an expired token is named as such only once its whole secret matched.
 *
 * The sentences hold no `"` and no `\`: API Gateway puts the authorizer's into its JSON body by plain
 * substitution (`$context.authorizer.detail`), unescaped.
 */

/** Why a request has no principal: its header (missing, not Bearer, malformed) or its token (unknown or revoked, expired). */
export type TokenRefusal = 'missing' | 'not_bearer' | 'malformed' | 'unknown' | 'expired';

/** The key of the authorizer's context (on a Deny) that holds the sentence, read by the ACCESS_DENIED gateway response. */
export const REFUSAL_CONTEXT_KEY = 'detail';

/** How to make a token, as every 401 ends. */
const HOW_TO_MAKE_A_TOKEN =
  'To make one: npm run token -- create --workspace <slug> --name <your name> --username <you> --all-scopes --expires-in 30d (locally, the first npm start printed one).';

const SHAPE = 'pls_, 16 lowercase letters and digits, _, then 43 letters, digits, - or _';
const SEND = 'send Authorization: Bearer <token>';

const SENTENCES: Record<Exclude<TokenRefusal, 'expired'>, string> = {
  missing: `No Authorization header: ${SEND}.`,
  not_bearer: `The Authorization header is not a bearer token: ${SEND} (the word Bearer, one space, the token).`,
  malformed: `The bearer token is not in the form of this service's tokens (${SHAPE}): check that it was copied whole.`,
  unknown: 'This token is not known to this API, or was revoked (a token works only on the stack that made it).',
};

/** The 401's detail for `refusal`; an expired token's names when it expired. */
export function refusalDetail(refusal: TokenRefusal, expiredAt?: string): string {
  const sentence = refusal === 'expired' ? `This token expired${expiredAt ? ` at ${expiredAt}` : ''}.` : SENTENCES[refusal];
  return `${sentence} ${HOW_TO_MAKE_A_TOKEN}`;
}

/**
 * The deployed stage's one sentence for the three refusals API Gateway answers itself, before any code
 * runs (a missing header, or one failing the authorizer's identity validation): its gateway responses
 * substitute variables but cannot choose between texts. The local gateway names each apart.
 */
export const GATEWAY_UNAUTHORIZED_DETAIL = `No valid bearer token: ${SEND}, a token of this service (${SHAPE}); this request sent none, another scheme, or a token not in that form. ${HOW_TO_MAKE_A_TOKEN}`;

/** What is wrong with an Authorization header, before any token is looked up; undefined when it has a token's form. */
export function headerRefusal(header: string | undefined): TokenRefusal | undefined {
  if (header === undefined || header.trim() === '') return 'missing';
  if (!header.startsWith('Bearer ')) return 'not_bearer';
  return BEARER_HEADER.test(header) ? undefined : 'malformed';
}
