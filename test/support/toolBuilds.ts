import { existsSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { repoRoot } from '#lib/paths';

/**
 * The tools of bin/ as the tests run them: built once per test process, all in one esbuild build
 * (each tool and the packages it loads, their shared code in common chunks), and started with plain
 * `node`. Under tsx, a start costs about 1 s of CPU (tsx's own start about 0.8 s of it); built, about
 * 0.25 s. A test run starts tools over a hundred times. The source is the same;
 * test/hostile/cli-arguments-*.test.ts hold each tool's answers under tsx (as `npm run` starts it) and
 * built to be the same.
 *
 * Each source file keeps its own `import.meta.url`, so what a tool finds relative to its source (the
 * repository root, DynamoDB Local's jar) is where it is under tsx. The handlers, which the local API,
 * `invoke` and `openapi` import by a path taken from the route table at run time, are built in as well:
 * each such import looks the file's URL up in a table of every handler of functions/ (an import esbuild
 * can follow) instead of asking a loader for a TypeScript file.
 */

/** Packages the tools do not load on their paths the tests take, or that cannot be put in one file: left to node_modules. */
const EXTERNAL = ['esbuild', 'aws-cdk-lib', 'constructs', 'typescript', 'vitest', 'fast-check'];

/**
 * Replaces `import.meta.url` (not inside a string on its line) with the source file's own URL, and
 * each import of a handler by a computed path with a lookup in the table of handlers.
 */
const ownUrls: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const url = JSON.stringify(pathToFileURL(path).href);
      const source = await readFile(path, 'utf8');
      const contents = source
        .split('\n')
        .map((line) =>
          line.replace(/import\.meta\.url/g, (found, at: number) => ((line.slice(0, at).match(/['"`]/g) ?? []).length % 2 ? found : url)),
        )
        .join('\n');
      return { contents: IMPORTS_HANDLERS.has(path) ? withHandlerTable(contents) : contents, loader: 'ts' };
    });
  },
};

/** The files that import a handler by the path the route table gives, and how they spell it. */
const IMPORTS_HANDLERS = new Set(['lib/local/lambdaEvents.ts', 'lib/openapi/document.ts'].map((f) => join(repoRoot, f)));
const COMPUTED_IMPORT = 'import(pathToFileURL(';

/** Every handler of functions/ (all but functions/commons/): what a computed import may name. */
function handlerFiles(dir = join(repoRoot, 'functions')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'commons' ? [] : handlerFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** `source` with its computed imports of handlers looked up in a table of static imports. */
function withHandlerTable(source: string): string {
  if (!source.includes(COMPUTED_IMPORT)) throw new Error(`no ${COMPUTED_IMPORT} left to replace: update IMPORTS_HANDLERS (toolBuilds.ts)`);
  const table = handlerFiles().map((f) => `  ${JSON.stringify(pathToFileURL(f).href)}: () => import(${JSON.stringify(f)}),`);
  return `${source.replaceAll(COMPUTED_IMPORT, '__builtImport(pathToFileURL(')}
const __builtHandlers: Record<string, () => Promise<any>> = {
${table.join('\n')}
};
function __builtImport(url: string): Promise<any> {
  const load = __builtHandlers[url];
  if (!load) throw new Error(\`\${url} is not a handler of functions/: the tools the tests build import no other file by a computed path\`);
  return load();
}
`;
}

/** Inside node_modules, so that the external packages resolve from the built files; one directory per process. */
const parentDir = join(repoRoot, 'node_modules', '.cache', 'test-tools');
const outDir = join(parentDir, `${process.pid}-${Date.now().toString(36)}`);

/** Whether process `pid` is still running. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The builds of processes that have ended (a test worker is stopped, not ended in order: it leaves its build). */
function removeLeftBuilds(): void {
  if (!existsSync(parentDir)) return;
  for (const dir of readdirSync(parentDir)) {
    if (!running(Number(dir.split('-')[0]))) rmSync(join(parentDir, dir), { recursive: true, force: true });
  }
}

let built: Promise<Map<string, string>> | undefined;

/** `bin/token.ts` -> `token`: the name of a tool's built file. */
const nameOf = (file: string) => basename(file, '.ts');
/** esbuild's entry points for `files`, each named as its built file. */
const entryPoints = (files: string[]) => Object.fromEntries(files.map((f) => [nameOf(f), join(repoRoot, f)]));

async function buildTools(files: string[]): Promise<Map<string, string>> {
  removeLeftBuilds();
  // All in one build: the code they share (the SDK, the store, the handlers) in chunks, built once.
  await build({
    entryPoints: entryPoints(files),
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [ownUrls],
    logLevel: 'error',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    external: EXTERNAL,
    // The packages written for CommonJS call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __toolRequire } from 'node:module'; const require = __toolRequire(import.meta.url);" },
  });
  return new Map(files.map((f) => [f, join(outDir, `${nameOf(f)}.mjs`)]));
}

/**
 * The built file of each tool `files` names (tools of bin/, e.g. `bin/token.ts`), built the first
 * time a test of this process asks (all of them at once; `files` is read only then).
 */
export function builtTools(files: () => string[]): Promise<Map<string, string>> {
  built ??= buildTools(files());
  return built;
}
