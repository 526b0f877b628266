import { build, type Metafile } from 'esbuild';
import { statSync } from 'node:fs';

export interface BuiltBundle {
  outfile: string;
  bytes: number;
  metafile: Metafile;
}

/**
 * How a function is bundled for Lambda (nodejs22.x, arm64): one minified ESM file with the AWS SDK
 * inside it. Kept to this one function so the canonical settings (lib/bundling.ts, written
 * elsewhere) can replace it without touching the rest of the benchmark.
 */
export async function buildBundle(entry: string, outfile: string, format: 'esm' | 'cjs' = 'esm'): Promise<BuiltBundle> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    platform: 'node',
    target: 'node22',
    format,
    bundle: true,
    minify: true,
    treeShaking: true,
    sourcemap: 'external',
    mainFields: ['module', 'main'],
    // Nothing external: the SDK version in the bundle is the one we test with.
    external: [],
    banner: format === 'esm' ? { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } : {},
    metafile: true,
    logLevel: 'silent',
  });
  return { outfile, bytes: statSync(outfile).size, metafile: result.metafile! };
}
