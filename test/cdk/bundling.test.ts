import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { authorizerHandler } from '#http/routes';
import { buildBundle } from '#cdk/bundling';
import { ServiceFunction } from '#cdk/service-function';
import { STAGES } from '#cdk/stage';

/** The bundle's code without its trailing `//# sourceMappingURL=` line (the only part naming the file). */
const code = (file: string) => readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '');

const dir = mkdtempSync(join(tmpdir(), 'pls-bundling-'));
let cdkBundle: string;

beforeAll(() => {
  // One function through NodejsFunction's real local-esbuild bundling (as `npm run synth` does for all).
  const app = new App({ outdir: join(dir, 'cdk.out'), context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'BundlingProbe');
  const table = new Table(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
  const fn = new ServiceFunction(stack, 'Authorizer', { name: 'authorizer', handler: authorizerHandler, stage: STAGES.dev, table });
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template as {
    Resources: Record<string, { Metadata?: Record<string, string> }>;
  };
  const assetPath = template.Resources[stack.getLogicalId(fn.node.defaultChild as never)]!.Metadata!['aws:asset:path']!;
  cdkBundle = join(assembly.directory, assetPath, 'index.mjs');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('CDK bundles a function exactly as buildBundle() does, so local bundle tests measure what is deployed', async () => {
  const local = join(dir, 'local', 'index.mjs');
  await buildBundle(authorizerHandler, local);
  expect(code(cdkBundle)).toBe(code(local));
});

test('the deployed bundle is minified ESM that defines require for CommonJS dependencies, with a source map', () => {
  const bundle = readFileSync(cdkBundle, 'utf8');
  expect(
    bundle.startsWith(
      "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
    ),
  ).toBe(true);
  expect(bundle).toMatch(/export\s*\{[^}]*\bas handler\b/);
  expect(bundle).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\n?$/);
  expect(JSON.parse(readFileSync(`${cdkBundle}.map`, 'utf8')).sourcesContent).toBeUndefined();
});
