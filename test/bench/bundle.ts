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
 * metafile for the size breakdown. `cjs` is only for the CommonJS floor the targets are measured
 * against: the same settings with CommonJS output (so no ESM `require` banner) and nothing external.
 */
export async function buildBundle(
  entry: string,
  outfile: string,
  kind: 'handler' | 'floor-esm' | 'floor-cjs' = 'handler',
): Promise<BuiltBundle> {
  const result = await build({
    ...buildOptions(),
    entryPoints: [entry],
    outfile,
    // The floors are defined with the whole SDK bundled, whatever the stack leaves to the runtime.
    ...(kind === 'handler' ? {} : { external: [] }),
    ...(kind === 'floor-cjs' ? { format: 'cjs', banner: {} } : {}),
    metafile: true,
    logLevel: 'silent',
  });
  return { outfile, bytes: statSync(outfile).size, metafile: result.metafile! };
}
