import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '#lib/paths';

/**
 * The client as its package ships it: `npm run build:client` run once per test file that needs it (into a folder of its own), and
 * its bundle imported (the tests call what users run, not its sources). Typed loosely on purpose: the
 * package's own types are held by a strict consumer built against the packed package (pack.ts, used by client.test.ts).
 */

export type Built = Record<string, any>;

export async function builtClient(): Promise<Built> {
  // A folder of this test file's own: files building side by side never write each other's.
  const out = mkdtempSync(join(tmpdir(), 'pls-client-'));
  execFileSync(process.execPath, ['--import', 'tsx', 'bin/build-client.ts', '--out-dir', out], { cwd: repoRoot, stdio: 'pipe' });
  return (await import(pathToFileURL(join(out, 'index.js')).href)) as Built;
}
