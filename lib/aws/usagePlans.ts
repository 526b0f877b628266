import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
} from '@aws-sdk/client-api-gateway';
import { usageKeyOf, type RateLimit } from '#domain/tokens';
import { apiKeyName, usagePlanName } from './usagePlanNames';

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

async function planFor(api: DeployedApi, limit: RateLimit): Promise<string> {
  const name = usagePlanName(api.restApiId, api.stage, limit);
  let position: string | undefined;
  do {
    const page = await api.client.send(new GetUsagePlansCommand({ position, limit: 500 }));
    const found = page.items?.find((p) => p.name === name);
    if (found?.id) return found.id;
    position = page.position;
  } while (position);
  const created = await api.client.send(
    new CreateUsagePlanCommand({
      name,
      description: `Rate limit of API tokens: ${limit.rate} requests per second, burst ${limit.burst} (made by the token CLI).`,
      apiStages: [{ apiId: api.restApiId, stage: api.stage }],
      throttle: { rateLimit: limit.rate, burstLimit: limit.burst },
    }),
  );
  return created.id!;
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

/** Removes the token's API key (and so its place in any plan); false when it had none. */
export async function removeTokenKey(api: DeployedApi, tokenId: string): Promise<boolean> {
  const name = apiKeyName(tokenId);
  const found = await api.client.send(new GetApiKeysCommand({ nameQuery: name, includeValues: false, limit: 500 }));
  const keys = (found.items ?? []).filter((k) => k.name === name && k.id);
  for (const key of keys) await api.client.send(new DeleteApiKeyCommand({ apiKey: key.id! }));
  return keys.length > 0;
}
