import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlanKeysCommand,
  GetUsagePlansCommand,
  type PatchOperation,
  UpdateUsagePlanCommand,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import { usageKeyOf, type RateLimit } from '#domain/tokens';
import { type MethodThrottle, methodThrottles, throttleMap } from './methodThrottles';
import { apiKeyName, tokenIdOfKey, usagePlanName, usagePlanPrefix } from './usagePlanNames';

/**
 * A deployed stage's per-token rate limits, kept by the token CLI: each token gets an API key (value
 * `usageKeyOf(id)`, which the authorizer names for the token's requests) in the usage plan of its
 * limits. The stack makes the plan of the default limits; other limits get a plan of their own, made
 * the first time a token needs it and shared by every token of the same limits.
 */
export interface DeployedApi {
  restApiId: string;
  stage: string;
  client: APIGatewayClient;
}

/** The deployed API named by REST_API_ID and STAGE_NAME (stack outputs), or undefined when unset. */
export function deployedApi(env: NodeJS.ProcessEnv = process.env): DeployedApi | undefined {
  const restApiId = env.REST_API_ID?.trim();
  const stage = env.STAGE_NAME?.trim();
  if (!restApiId || !stage) return undefined;
  return { restApiId, stage, client: new APIGatewayClient({}) };
}

/** Every usage plan (of the account and Region), or those holding one API key. */
async function usagePlans(api: DeployedApi, keyId?: string): Promise<UsagePlan[]> {
  const plans: UsagePlan[] = [];
  let position: string | undefined;
  do {
    const page = await api.client.send(new GetUsagePlansCommand({ position, limit: 500, ...(keyId ? { keyId } : {}) }));
    plans.push(...(page.items ?? []));
    position = page.position;
  } while (position);
  return plans;
}

async function planFor(api: DeployedApi, limit: RateLimit): Promise<string> {
  const name = usagePlanName(api.restApiId, api.stage, limit);
  const throttles = methodThrottles(limit);
  const found = (await usagePlans(api)).find((p) => p.name === name);
  if (found?.id) {
    await keepMethodThrottles(api, found, throttles);
    return found.id;
  }
  const created = await api.client.send(
    new CreateUsagePlanCommand({
      name,
      description: `Rate limit of API tokens: ${limit.rate} requests per second, burst ${limit.burst}, and of their heavy methods (made by the token CLI).`,
      apiStages: [{ apiId: api.restApiId, stage: api.stage, throttle: throttleMap(throttles) }],
      throttle: { rateLimit: limit.rate, burstLimit: limit.burst },
    }),
  );
  return created.id!;
}

/**
 * A plan of the stage whose methods' limits are not those the model now derives (one made before
 * methods had limits of their own, or before the figures moved) is brought to them, method by method.
 */
async function keepMethodThrottles(api: DeployedApi, plan: UsagePlan, throttles: MethodThrottle[]): Promise<void> {
  const stage = plan.apiStages?.find((s) => s.apiId === api.restApiId && s.stage === api.stage);
  if (!stage) return;
  const kept = stage.throttle ?? {};
  const operations: PatchOperation[] = throttles.flatMap((t) => {
    const now = kept[`${t.path}/${t.method}`];
    if (now?.rateLimit === t.rateLimit && now?.burstLimit === t.burstLimit) return [];
    // A JSON Pointer: the resource path's own slashes escaped (~1), as API Gateway addresses a method's throttle.
    const at = `/apiStages/${api.restApiId}:${api.stage}/throttle/${t.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${t.method}`;
    return [
      { op: 'replace', path: `${at}/rateLimit`, value: String(t.rateLimit) },
      { op: 'replace', path: `${at}/burstLimit`, value: String(t.burstLimit) },
    ];
  });
  if (operations.length) await api.client.send(new UpdateUsagePlanCommand({ usagePlanId: plan.id, patchOperations: operations }));
}

/** Gives the token its API key in the plan of its limits. */
export async function addTokenKey(api: DeployedApi, tokenId: string, limit: RateLimit): Promise<void> {
  const usagePlanId = await planFor(api, limit);
  const key = await api.client.send(
    new CreateApiKeyCommand({
      name: apiKeyName(tokenId),
      value: usageKeyOf(tokenId),
      enabled: true,
      description: `Rate limit of API token ${tokenId}: ${limit.rate}/s, burst ${limit.burst}.`,
    }),
  );
  await api.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id!, keyType: 'API_KEY' }));
}

/** The ids of the token's API keys (one, or none; a name query matches prefixes, so names are compared). */
async function keyIdsOf(api: DeployedApi, tokenId: string): Promise<string[]> {
  const name = apiKeyName(tokenId);
  const found = await api.client.send(new GetApiKeysCommand({ nameQuery: name, includeValues: false, limit: 500 }));
  return (found.items ?? []).filter((k) => k.name === name && k.id).map((k) => k.id!);
}

/**
 * Puts the token's key in the plan of `limit`, never leaving it without one for longer than the
 * move: the target plan is found (or made) first, the key keeps its id and value, and should joining
 * the new plan fail, the key goes back to the plans it left. A token without a key gets one.
 */
export async function placeTokenKey(api: DeployedApi, tokenId: string, limit: RateLimit): Promise<'created' | 'moved' | 'unchanged'> {
  const [keyId] = await keyIdsOf(api, tokenId);
  if (!keyId) {
    await addTokenKey(api, tokenId, limit);
    return 'created';
  }
  const target = await planFor(api, limit);
  const held = (await usagePlans(api, keyId)).map((p) => p.id!).filter(Boolean);
  const leave = held.filter((id) => id !== target);
  if (held.includes(target) && leave.length === 0) return 'unchanged';
  // A key may sit in one plan per stage: it leaves the old plan before it joins the new one.
  for (const usagePlanId of leave) await api.client.send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId }));
  try {
    if (!held.includes(target)) await api.client.send(new CreateUsagePlanKeyCommand({ usagePlanId: target, keyId, keyType: 'API_KEY' }));
  } catch (error) {
    for (const usagePlanId of leave)
      await api.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId, keyType: 'API_KEY' })).catch(() => undefined);
    throw error;
  }
  return 'moved';
}

/** Removes the token's API key (and so its place in any plan); false when it had none. */
export async function removeTokenKey(api: DeployedApi, tokenId: string): Promise<boolean> {
  const keyIds = await keyIdsOf(api, tokenId);
  for (const apiKey of keyIds) await api.client.send(new DeleteApiKeyCommand({ apiKey }));
  return keyIds.length > 0;
}

/** Between two key deletes: API Gateway takes at most 5 DeleteApiKey calls a second per account (not raised). */
const DELETE_PAUSE_MS = 250;

/**
 * Removes the API keys of this stage's tokens that can no longer be used: expired, revoked, or unknown to
 * the stage's table. API keys are capped at 10,000 per account and Region (a quota AWS does not raise),
 * and a token's key outlives its expiry until something removes it. Only keys in this stage's usage
 * plans are looked at: API keys are account-wide, and another stage's (or application's) are not ours.
 * `isUsable` is asked again (`confirm`, strongly consistent) before a key goes: a token made while the
 * sweep ran keeps its key. Deletes are paced under API Gateway's 5 DeleteApiKey calls a second.
 */
export async function sweepTokenKeys(
  api: DeployedApi,
  isUsable: (tokenId: string) => boolean,
  confirm: (tokenId: string) => Promise<boolean>,
  pauseMs = DELETE_PAUSE_MS,
): Promise<{ removed: number; kept: number }> {
  const prefix = usagePlanPrefix(api.restApiId, api.stage);
  const keys = new Map<string, string | undefined>();
  for (const plan of await usagePlans(api)) {
    if (!plan.id || !plan.name?.startsWith(prefix)) continue;
    let position: string | undefined;
    do {
      const page = await api.client.send(new GetUsagePlanKeysCommand({ usagePlanId: plan.id, position, limit: 500 }));
      for (const key of page.items ?? []) if (key.id) keys.set(key.id, key.name);
      position = page.position;
    } while (position);
  }
  let removed = 0;
  for (const [apiKey, name] of keys) {
    const tokenId = tokenIdOfKey(name);
    if (tokenId === undefined || isUsable(tokenId) || (await confirm(tokenId))) continue;
    if (removed > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    await api.client.send(new DeleteApiKeyCommand({ apiKey }));
    removed++;
  }
  return { removed, kept: keys.size - removed };
}
