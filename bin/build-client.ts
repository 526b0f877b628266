/**
 * npm run build:client: the client package (lib/client) from the route table and the wire schemas:
 * writes its generated module (operations and types), checks and declares its types (tsc, strict), and
 * bundles it (esbuild) into an ES module and a CommonJS one with their source maps, which `npm pack ./lib/client`
 * packs with the package's README and LICENSE (`--pack` does, and prints the install line). Prints the sizes.
 */
import '#lib/sdkNotice';
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cliArguments, usageError } from '#lib/cli';
import { repoRoot } from '#lib/paths';

const USAGE = `usage: npm run build:client [-- --out-dir <dir> | --pack]   (writes lib/client/src/generated.ts and lib/client/dist, or <dir>, from the route table)
  --out-dir  where the bundles go (default lib/client/dist)
  --pack     then packs the package (npm pack) into this folder and prints the line that installs it from any folder`;
const { values } = await cliArguments({ usage: USAGE, options: { 'out-dir': 'string', pack: 'boolean' } });
if (values.pack && values['out-dir'] !== undefined) usageError('--pack packs lib/client/dist: leave --out-dir out.', USAGE);
const { clientModule } = await import('#lib/clientgen/generate');
const { build } = await import('esbuild');

const dir = join(repoRoot, 'lib', 'client');
const out = values['out-dir'] === undefined ? join(dir, 'dist') : resolve(values['out-dir']);
// Written whole or not at all (a rename): builds running side by side (test files) never read half of it.
const generated = join(dir, 'src', 'generated.ts');
writeFileSync(`${generated}.${process.pid}`, await clientModule());
renameSync(`${generated}.${process.pid}`, generated);
rmSync(out, { recursive: true, force: true });
try {
  const tsc = join(repoRoot, 'node_modules', 'typescript-7', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--outDir', out], { stdio: 'pipe' });
} catch (error) {
  console.error(`The client's types do not check:\n${(error as { stdout: Buffer }).stdout.toString()}`);
  process.exit(1);
}
// One bundle per module system: ES (import) and CommonJS (require), each with its source map.
for (const [format, file] of [
  ['esm', 'index.js'],
  ['cjs', 'index.cjs'],
] as const) {
  await build({
    entryPoints: [join(dir, 'src', 'index.ts')],
    outfile: join(out, file),
    bundle: true,
    format,
    platform: 'neutral',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
}
const js = readFileSync(join(out, 'index.js'));
console.log(`${out} written: index.js ${js.length} bytes, ${gzipSync(js).length} bytes gzipped (and index.cjs, source maps)`);
if (values.pack) {
  const tarball = join(
    repoRoot,
    execFileSync('npm', ['pack', dir, '--pack-destination', repoRoot, '--silent'], { cwd: repoRoot }).toString().trim(),
  );
  console.log(`Packed ${tarball}. In your project: npm install ${JSON.stringify(tarball)}`);
}
