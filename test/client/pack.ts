import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';

/**
 * The client as a user gets it: `npm run build:client -- --pack`, and the install line it prints run as
 * printed (offline) in an empty folder of a consumer package elsewhere. Returns that folder and the tarball.
 */
export function installedPackage(): { dir: string; tarball: string } {
  const printed = execFileSync(process.execPath, ['--import', 'tsx', 'bin/build-client.ts', '--pack'], { cwd: repoRoot }).toString();
  const [, tarball, line] = /^Packed (.+\.tgz)\. In your project: (npm install .+)$/m.exec(printed)!;
  const dir = mkdtempSync(join(tmpdir(), 'pls-consumer-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execSync(`${line} --offline --no-audit --no-fund --ignore-scripts`, { cwd: dir, stdio: 'pipe' });
  return { dir, tarball: tarball! };
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
  const tsc = join(repoRoot, 'node_modules', 'typescript-7', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, stdio: 'pipe' });
    return '';
  } catch (error) {
    return (error as { stdout: Buffer }).stdout.toString();
  }
}
