import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { authorizerHandler } from '#http/routes';
import { build } from 'esbuild';
import { buildBundle, buildOptions } from '#cdk/bundling';
import { ServiceFunction } from '#cdk/service-function';
import { STAGES } from '#cdk/stage';
import { sourceMappedStack } from '#observability/stacks';

/** The bundle's code without its trailing `//# sourceMappingURL=` line (the only part naming the file). */
const code = (file: string) => readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '');

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'pls-bundling-'));
let cdkBundle: string;

beforeAll(() => {
  // One function through NodejsFunction's real local-esbuild bundling (as `npm run synth` does for all).
  // Bundling alone: CDK's CloudFormation validation of the probe's template is not what this file checks.
  const app = new App({
    outdir: join(dir, 'cdk.out'),
    context: { 'aws:cdk:enable-asset-metadata': true },
    builtinCloudFormationValidation: false,
  });
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

test("a frame in the deployed bundle maps, through the map shipped beside it, to the repository's source", () => {
  const bundle = readFileSync(cdkBundle, 'utf8');
  const at = bundle.indexOf('"execute-api:Invoke"');
  expect(at).toBeGreaterThan(0);
  const before = bundle.slice(0, at).split('\n');
  const frame = `    at handler (file://${cdkBundle}:${before.length}:${before.at(-1)!.length + 1})`;
  expect(sourceMappedStack(frame)).toBe('    at handler (functions/authorizer/handler.ts:41:57)');
});

test('the bundles replace node:stream/web with a lazy shim: importing it loads no web streams, and instanceof still answers', async () => {
  const entry = join(dir, 'probe.ts');
  writeFileSync(entry, "export { ReadableStream } from 'node:stream/web';\n");
  const loader = join(dir, 'probe-loader.mjs');
  writeFileSync(
    loader,
    `const before = new Set(process.moduleLoadList);
const { ReadableStream } = await import(process.argv[2]);
const loaded = process.moduleLoadList.filter((m) => !before.has(m) && m.includes('webstreams')).length;
const answers = [new globalThis.ReadableStream() instanceof ReadableStream, {} instanceof ReadableStream];
process.stdout.write(JSON.stringify({ loaded, answers }));`,
  );
  const probe = async (name: string, alias: Record<string, string> | undefined) => {
    const out = join(dir, name, 'index.mjs');
    await build({ ...buildOptions(), ...(alias ? { alias } : {}), entryPoints: [entry], outfile: out, logLevel: 'silent' });
    return { code: code(out), result: JSON.parse((await run(process.execPath, [loader, out])).stdout) };
  };
  const shimmed = await probe('probe-shimmed', undefined);
  expect(shimmed.code).not.toContain('node:stream/web');
  expect(shimmed.result).toEqual({ loaded: 0, answers: [true, false] });
  // Without the alias the same import loads Node's web streams: what the shim saves every cold start.
  const real = await probe('probe-real', {});
  expect(real.result.loaded).toBeGreaterThan(0);
  expect(real.result.answers).toEqual([true, false]);
});

test('a function bundle (middy and all) never imports node:stream/web', async () => {
  const out = join(dir, 'get-project', 'index.mjs');
  await buildBundle('functions/projects/get.ts', out);
  expect(code(out)).not.toContain('node:stream/web');
});
