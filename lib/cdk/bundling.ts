import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { LogLevel, OutputFormat, SourceMapMode, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { repoRoot } from '#lib/paths';

/**
 * The one description of how a handler becomes a Lambda bundle. The CDK stack (through
 * `lambdaBundling()`) and the bundle smoke test / benchmarks (through `buildBundle()`) both read it,
 * so what is measured locally is byte-for-byte what is deployed.
 *
 * ESM output needs a `require` for the CommonJS code some dependencies still carry; the banner
 * defines one with an import name nothing in the bundle can clash with.
 */
const ESBUILD = {
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  minify: true,
  treeShaking: true,
  sourcemap: true,
  sourcesContent: false,
  /**
   * The AWS SDK is bundled, not taken from the runtime: pinned version, tree-shaken, faster cold
   * start. Except the credential providers the SDK's default chain imports lazily, only when no
   * credentials are in the environment: on Lambda they always are, so these imports never run
   * there (and, if they ever did, the nodejs22.x runtime ships these packages). Leaving them out
   * saves about 60 KB that every cold start would otherwise parse.
   */
  external: [
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-web-identity',
    '@aws-sdk/credential-provider-http',
    '@smithy/credential-provider-imds',
  ] as string[],
  /** Modules replaced in the bundle: see the shim for why. */
  alias: { 'node:stream/web': join(repoRoot, 'lib/cdk/shims/stream-web.ts') } as Record<string, string>,
  banner: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
} as const;

/** The NodejsFunction bundling options for the settings above: local esbuild, never Docker. */
export function lambdaBundling(): BundlingOptions {
  return {
    forceDockerBundling: false,
    // Errors only: `npm run synth` says which function it bundles, not each bundle's file sizes.
    logLevel: LogLevel.ERROR,
    format: OutputFormat.ESM,
    target: ESBUILD.target,
    mainFields: [...ESBUILD.mainFields],
    minify: ESBUILD.minify,
    sourceMap: ESBUILD.sourcemap,
    sourceMapMode: SourceMapMode.DEFAULT,
    sourcesContent: ESBUILD.sourcesContent,
    externalModules: [...ESBUILD.external],
    banner: ESBUILD.banner,
    esbuildArgs: {
      '--tree-shaking': String(ESBUILD.treeShaking),
      ...Object.fromEntries(Object.entries(ESBUILD.alias).map(([from, to]) => [`--alias:${from}`, to])),
    },
  };
}

/** esbuild's options for the settings above (entry points and output left to the caller). */
export function buildOptions(): BuildOptions {
  return {
    absWorkingDir: repoRoot,
    bundle: true,
    logLevel: 'warning',
    platform: ESBUILD.platform,
    target: ESBUILD.target,
    format: ESBUILD.format,
    mainFields: [...ESBUILD.mainFields],
    minify: ESBUILD.minify,
    treeShaking: ESBUILD.treeShaking,
    sourcemap: ESBUILD.sourcemap,
    sourcesContent: ESBUILD.sourcesContent,
    external: [...ESBUILD.external],
    alias: { ...ESBUILD.alias },
    banner: { js: ESBUILD.banner },
  };
}

/**
 * Builds one handler (repository-relative path, as in the route table) into `outfile` (use `.mjs`)
 * with exactly the stack's settings; the source map is written next to it.
 */
export async function buildBundle(entry: string, outfile: string): Promise<void> {
  await mkdir(dirname(outfile), { recursive: true });
  await build({ ...buildOptions(), entryPoints: [join(repoRoot, entry)], outfile });
}

/**
 * Builds several handlers at once into `<outdir>/<name>/index.mjs` (the file name Lambda gets).
 * One esbuild run parses shared code (the AWS SDK) once; without code splitting every bundle is
 * still self-contained, as `buildBundle` would make it.
 */
export async function buildBundles(entries: Record<string, string>, outdir: string): Promise<Record<string, string>> {
  await build({
    ...buildOptions(),
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [`${name}/index`, join(repoRoot, entry)])),
    outdir,
    outExtension: { '.js': '.mjs' },
  });
  return Object.fromEntries(Object.keys(entries).map((name) => [name, join(outdir, name, 'index.mjs')]));
}
