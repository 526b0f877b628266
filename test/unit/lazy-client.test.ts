import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterAll, expect, test } from 'vitest';
import { buildOptions } from '#cdk/bundling';
import { prepareEvent, routeNamed } from '#local/samples';
import { repoRoot } from '#lib/paths';

const dir = mkdtempSync(join(tmpdir(), 'pls-lazy-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The SDK's DynamoDB client, counted as it is made: the one change to a bundle built as the stack builds it. */
const COUNTED = `export * from '@aws-sdk/client-dynamodb';
import { DynamoDBClient as Made } from '@aws-sdk/client-dynamodb';
export class DynamoDBClient extends Made {
  constructor(...args) { super(...args); globalThis.clientsMade = (globalThis.clientsMade ?? 0) + 1; }
}`;
const counted: Plugin = {
  name: 'counted-client',
  setup(b) {
    const shim = join(dir, 'counted.mjs');
    // Every import of the client's package gets the counted one, but the shim's own, which gets the package.
    b.onResolve({ filter: /^@aws-sdk\/client-dynamodb$/ }, async (args) => {
      if (args.pluginData === 'package') return undefined;
      if (args.importer !== shim) return { path: shim };
      return b.resolve(args.path, { kind: args.kind, resolveDir: repoRoot, pluginData: 'package' });
    });
  },
};

/** Loads a bundle in a fresh Node process, and invokes it with its sample event where `invoke`: clients made by then. */
async function clientsMade(name: string, invoke: boolean): Promise<{ loaded: number; answered?: number; status?: number }> {
  const route = routeNamed(name);
  const outfile = join(dir, `${name}.mjs`);
  await build({ ...buildOptions(), sourcemap: false, entryPoints: [join(repoRoot, route.handler)], outfile, plugins: [counted] });
  const event = prepareEvent(JSON.parse(readFileSync(join(repoRoot, 'events', `${name}.json`), 'utf8')), {});
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(event));
  const runner = `const { handler } = await import(${JSON.stringify(outfile)});
const loaded = globalThis.clientsMade ?? 0;
if (!${invoke}) { console.log(JSON.stringify({ loaded })); process.exit(0); }
const event = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(join(dir, `${name}.json`))}, 'utf8'));
const answer = await handler(event, { functionName: ${JSON.stringify(name)}, awsRequestId: 'lazy-client', getRemainingTimeInMillis: () => 20000 });
console.log(JSON.stringify({ loaded, answered: globalThis.clientsMade ?? 0, status: answer.statusCode }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', runner], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      AWS_REGION: 'us-east-1',
      TABLE_NAME: 'lazy-client',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      // The workspace limits on, as the stack sets them: they count every request of a route that draws.
      WORKSPACE_RATE_LIMITS: 'rcu=2700,wcu=900',
    },
  });
  return JSON.parse(out.toString().trim().split('\n').at(-1)!);
}

/**
 * A function whose route never reaches the table makes no DynamoDB client, as it loads or as it answers, with the
 * workspace limits on (a route that draws nothing is not counted); one that reads the table makes its client as it
 * loads, so that warm requests reuse it. A cold start pays for what its function uses.
 */
test('GET /webhook-event-types makes no DynamoDB client, limits on; GET /projects/{slug} makes one as it loads', async () => {
  writeFileSync(join(dir, 'counted.mjs'), COUNTED);
  expect(await clientsMade('list-webhook-event-types', true)).toEqual({ loaded: 0, answered: 0, status: 200 });
  expect(await clientsMade('get-project', false)).toEqual({ loaded: 1 });
});
