import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { repoRoot } from '#lib/paths';

/** The client package as `npm run build:client` makes it: what it ships, and how long the build takes. */
export interface ClientSizeRow {
  /** The ES module it ships (minified). */
  jsBytes: number;
  jsGzipBytes: number;
  /** The CommonJS build beside it (for `require`), gzipped; absent in runs before it shipped one. */
  cjsGzipBytes?: number;
  /** Its type declarations, all files. */
  declarationBytes: number;
  buildS: number;
}

export function measureClient(): ClientSizeRow {
  const out = mkdtempSync(join(tmpdir(), 'pls-bench-client-'));
  try {
    const started = performance.now();
    execFileSync(process.execPath, ['--import', 'tsx', 'bin/build-client.ts', '--out-dir', out], { cwd: repoRoot, stdio: 'pipe' });
    const buildS = (performance.now() - started) / 1000;
    const js = readFileSync(join(out, 'index.js'));
    const declarationBytes = readdirSync(out)
      .filter((f) => f.endsWith('.d.ts'))
      .reduce((sum, f) => sum + readFileSync(join(out, f)).length, 0);
    const cjs = readFileSync(join(out, 'index.cjs'));
    return { jsBytes: js.length, jsGzipBytes: gzipSync(js).length, cjsGzipBytes: gzipSync(cjs).length, declarationBytes, buildS };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

export function renderClient(row: ClientSizeRow | undefined): string {
  if (!row) return '### The TypeScript client package\n\nNot measured in this run.\n\n';
  return `### The TypeScript client package

\`@project-label-service/client\` (\`lib/client\`, docs/client.md) as \`npm run build:client\` builds it: an ES module and a CommonJS
one (for \`require\`), each with its source map, no runtime dependencies. Budget: 15 kB gzipped.

| ships | bytes |
|---|---|
| \`dist/index.js\` (minified) | ${kb(row.jsBytes)} |
| \`dist/index.js\` gzipped | ${kb(row.jsGzipBytes)} |
| \`dist/index.cjs\` gzipped | ${row.cjsGzipBytes === undefined ? 'not measured' : kb(row.cjsGzipBytes)} |
| type declarations (\`dist/*.d.ts\`) | ${kb(row.declarationBytes)} |

The build (generating its module from the route table, checking and declaring its types, bundling) took ${row.buildS.toFixed(1)} s.

`;
}
