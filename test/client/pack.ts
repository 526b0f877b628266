import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';

/**
 * The client as a user gets it: `npm run build:client`, `npm pack ./lib/client`, and the tarball installed
 * (offline) into an empty folder of a consumer package. Returns that folder.
 */
export function installedPackage(): { dir: string; tarball: string } {
  execFileSync(process.execPath, ['--import', 'tsx', 'bin/build-client.ts'], { cwd: repoRoot, stdio: 'pipe' });
  const dir = mkdtempSync(join(tmpdir(), 'pls-consumer-'));
  execFileSync('npm', ['pack', './lib/client', '--pack-destination', dir, '--silent'], { cwd: repoRoot, stdio: 'pipe' });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`], { cwd: dir, stdio: 'pipe' });
  return { dir, tarball: join(dir, tarball) };
}

/**
 * Type-checks `sources` (by file name; strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess) as a consumer of
 * the installed package (on Node, with its types, where `node`): the compiler's errors, or '' when they check.
 */
export function typeCheck(dir: string, sources: Record<string, string>, { node = false } = {}): string {
  for (const [name, source] of Object.entries(sources)) writeFileSync(join(dir, name), source);
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2022', 'dom', 'dom.iterable'],
    types: node ? ['node'] : [],
    ...(node ? { typeRoots: [join(repoRoot, 'node_modules', '@types')] } : {}),
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(sources) }));
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, stdio: 'pipe' });
    return '';
  } catch (error) {
    return (error as { stdout: Buffer }).stdout.toString();
  }
}
