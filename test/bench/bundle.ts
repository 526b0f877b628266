import { build, type Metafile } from 'esbuild';
import { statSync } from 'node:fs';
import { buildOptions } from '#cdk/bundling';

export interface BuiltBundle {
  outfile: string;
  bytes: number;
  metafile: Metafile;
}

/**
 * Builds one bundle with exactly the stack's esbuild settings (lib/bundling.ts), keeping the
 * metafile for the size breakdown. The floor the handlers are measured against is built the same
 * way, so that a ratio compares code, never two kinds of build.
 */
export async function buildBundle(entry: string, outfile: string): Promise<BuiltBundle> {
  const result = await build({
    ...buildOptions(),
    entryPoints: [entry],
    outfile,
    metafile: true,
    logLevel: 'silent',
  });
  return { outfile, bytes: statSync(outfile).size, metafile: result.metafile! };
}
