import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { createToken } from '#domain/tokens';
import { matchPath } from '#http/route';
import { toAuthorizerContext } from '#http/principal';
import { lambdaContext, proxyEvent } from './lambdaEvents.ts';
import { loadHandler, type ProxyHandler } from './lambdaEvents.ts';
import { FIXTURES, SAMPLE_PRINCIPAL, routeNamed } from './samples.ts';
import { seedSampleWebhooks } from './sampleWebhooks.ts';

/**
 * Makes the sample events runnable in a workspace: creates what they act on when it is missing,
 * removes the label create-label creates, and returns a fresh token for the authorizer event.
 * Goes through the handlers themselves (in-process), so fixtures are exactly what the API creates.
 * The caller must have pointed the AWS SDK at the database first (useLocalDatabase or real AWS).
 */
export async function seedFixtures(root: string, workspace: string, webhookUrl?: string): Promise<{ token: string }> {
  const call = callerFor(root, workspace);
  const q = { company_slug: workspace };
  for (const p of [FIXTURES.project, FIXTURES.doomedProject]) {
    const found = await call('get-project', `/projects/${p.slug}`, q);
    if (found.statusCode !== 200 && found.statusCode !== 404)
      throw new Error(`Reading project ${p.slug} gave ${found.statusCode} ${found.body}`);
    if (found.statusCode === 404) {
      const res = await call('create-project', '/projects', {}, { company_slug: workspace, name: p.name });
      expectCreated(res, p.slug, `project "${p.name}"`);
    }
  }
  const listed = await call('list-labels', '/projects-labels', q);
  if (listed.statusCode !== 200) throw new Error(`Listing labels gave ${listed.statusCode} ${listed.body}`);
  const labels = JSON.parse(listed.body).data as { slug: string }[];
  for (const l of [FIXTURES.label, FIXTURES.doomedLabel]) {
    if (!labels.some((existing) => existing.slug === l.slug)) {
      const res = await call('create-label', '/projects-labels', q, { title: l.title, color: l.color });
      expectCreated(res, l.slug, `label "${l.title}"`);
    }
  }
  if (labels.some((existing) => existing.slug === FIXTURES.newLabel.slug)) {
    await call('delete-label', `/projects-labels/${FIXTURES.newLabel.slug}`, q);
  }
  await seedSampleWebhooks(workspace, webhookUrl);
  const { token } = await createToken({ workspaces: [workspace], owner: SAMPLE_PRINCIPAL.owner, scopes: SAMPLE_PRINCIPAL.scopes });
  return { token };
}

function expectCreated(res: APIGatewayProxyResult, slug: string, what: string): void {
  const created = res.statusCode === 201 ? (JSON.parse(res.body).data as { slug: string }) : undefined;
  if (created?.slug !== slug) throw new Error(`Seeding ${what} gave ${res.statusCode} ${res.body} (expected slug ${slug})`);
}

/** Calls a route's handler in-process as the sample principal of `workspace` (a 503 is tried again twice). */
export function callerFor(root: string, workspace: string) {
  const principal = { ...SAMPLE_PRINCIPAL, workspaces: [workspace] };
  return async (name: string, path: string, query: Record<string, string>, body?: unknown) => {
    const route = routeNamed(name);
    const handler = await loadHandler<ProxyHandler>(root, route.handler);
    const event = proxyEvent({
      route,
      method: route.method,
      path,
      pathParameters: matchPath(route.path, path) ?? {},
      query: new URLSearchParams(query),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      authorizer: { principalId: principal.tokenId, ...toAuthorizerContext(principal) },
      requestId: randomUUID(),
    });
    // A 503 is the handlers' "database briefly unavailable, retry": DynamoDB Local on a loaded machine.
    for (let attempt = 1; ; attempt++) {
      const result = await handler(event, lambdaContext(route.name));
      if (result.statusCode !== 503 || attempt === 3) return result;
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  };
}
