import type { APIGatewayProxyEvent } from 'aws-lambda';
import { forbidden, unauthorized } from '#wire/problems';
import { isScope, type Scope } from '#domain/scopes';
import type { Principal, RateLimit } from '#domain/tokens';

export type { Principal };

/** The authorizer context is a flat map of strings (API Gateway allows no nesting). */
interface AuthorizerContext {
  tokenId: string;
  ownerName: string;
  ownerUsername: string;
  workspaces: string;
  scopes: string;
  /** The token's limits, as its usage plan enforces them deployed (the local gateway reads them here). */
  rateLimit?: string;
  burstLimit?: string;
}

export function toAuthorizerContext(p: Principal): AuthorizerContext {
  return {
    tokenId: p.tokenId,
    ownerName: p.owner.name,
    ownerUsername: p.owner.username,
    workspaces: p.workspaces.join(','),
    scopes: p.scopes.join(' '),
    ...(p.limits ? { rateLimit: String(p.limits.rate), burstLimit: String(p.limits.burst) } : {}),
  };
}

/** The rate limit an authorizer context carries, if any. */
export function limitsOf(context: Record<string, unknown> | null | undefined): RateLimit | undefined {
  const rate = Number(context?.rateLimit);
  const burst = Number(context?.burstLimit);
  return rate > 0 && burst >= 1 ? { rate, burst } : undefined;
}

/** Who is calling, as the token authorizer described them in `requestContext.authorizer`. */
export function principalOf(event: Pick<APIGatewayProxyEvent, 'requestContext'>): Principal {
  const ctx = event.requestContext?.authorizer as Partial<AuthorizerContext> | null | undefined;
  if (!ctx?.tokenId || typeof ctx.workspaces !== 'string' || typeof ctx.scopes !== 'string') {
    throw unauthorized('No authenticated principal on the request.');
  }
  return {
    tokenId: ctx.tokenId,
    owner: { name: ctx.ownerName ?? '', username: ctx.ownerUsername ?? '' },
    workspaces: ctx.workspaces.split(',').filter(Boolean),
    scopes: ctx.scopes.split(' ').filter(isScope),
  };
}

export function requireScope(p: Principal, scope: Scope): void {
  if (!p.scopes.includes(scope)) throw forbidden(`This token lacks the ${scope} scope.`);
}

/** Every scope of `scopes` the token must hold, `because` (a sentence's end) saying what needs them: a 403 naming the missing ones. */
export function requireScopes(p: Principal, scopes: readonly Scope[], because: string): void {
  const missing = scopes.filter((scope) => !p.scopes.includes(scope));
  if (missing.length) throw forbidden(`This token lacks the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''}, ${because}.`);
}

/** A 403 naming the workspace asked for and the ones the token is granted (its holder may know them), and how to get one for it. */
export function requireWorkspace(p: Principal, workspace: string): void {
  if (p.workspaces.includes(workspace)) return;
  const granted = p.workspaces.length ? `it is granted ${p.workspaces.join(', ')}` : 'it is granted none';
  throw forbidden(
    `This token is not granted workspace ${workspace} (${granted}): use one that is, made with npm run token -- create --workspace ${workspace}.`,
  );
}
