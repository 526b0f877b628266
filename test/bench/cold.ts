import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { authorizerHandler, inboundConsumerHandler, routes, streamProcessorHandler, webhookDelivererHandler } from '#http/routes';
import { repoRoot } from '#lib/paths';
import { buildBundle } from './bundle.ts';
import { log, median } from './stats.ts';

/**
 * Section 2: every function bundled as it would ship, its minified size, what dominates it, and
 * its cold init (a fresh Node process, from process start until the module is loaded), as a ratio
 * to a floor bundle measured in the same round. Rounds interleave all bundles so that machine
 * noise hits every bundle alike.
 */
interface BundleRow {
  name: string;
  bytes: number;
  /** Bytes in the output by package ("app" for this repository's code). */
  byPackage: [string, number][];
  /** Process start to module loaded. */
  initMs: number;
  ratioToFloor: number;
  /** The module load alone (the import). */
  loadMs: number;
  loadRatioToFloor: number;
  initMsAll: number[];
}

export interface ColdResult {
  /** Every deployed function. */
  rows: BundleRow[];
  rounds: number;
  /** The floor, built exactly like the functions. */
  floor: BundleRow;
  /** get-project with Powertools Tracer on its DynamoDB client: measured, not deployed. */
  traced: BundleRow;
  /** The floor with the libraries every route function uses and none of the project's code (test/bench/libraries.ts). */
  libraries?: BundleRow;
  /** Set when section 2 was measured again alone (`npm run bench -- --cold-only`), after the run the rest is from: when, and on what. */
  measuredAt?: string;
  machine?: { cpu: string; node: string };
}

function byPackage(metafile: Metafile): [string, number][] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      // The project's own code by module family (functions/commons/webhooks, functions/projects, ...).
      const own = /^(functions\/commons\/[^/]+|functions\/[^/]+|lib\/[^/]+)\//.exec(path);
      const key = m ? m[1]! : own ? own[1]! : 'app';
      totals.set(key, (totals.get(key) ?? 0) + input.bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

const LOADER = `import { pathToFileURL } from 'node:url';
const file = process.argv[2];
const start = performance.now();
await import(pathToFileURL(file).href);
const end = performance.now();
process.stdout.write(JSON.stringify([end, end - start]));
`;

function shuffle<T>(list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

export async function measureBundles(outDir: string, rounds: number): Promise<ColdResult> {
  mkdirSync(outDir, { recursive: true });
  const loader = join(outDir, 'load.mjs');
  writeFileSync(loader, LOADER);
  // The floor first (ratios are taken to it), the traced variant and the libraries' floor next, then every function.
  const all = [
    { name: 'floor', entry: join(repoRoot, 'test/bench/floor.ts') },
    { name: 'get-project + Tracer', entry: join(repoRoot, 'test/bench/traced.ts') },
    { name: 'libraries', entry: join(repoRoot, 'test/bench/libraries.ts') },
    ...routes.map((r) => ({ name: r.name, entry: join(repoRoot, r.handler) })),
    { name: 'authorizer', entry: join(repoRoot, authorizerHandler) },
    { name: 'stream-processor', entry: join(repoRoot, streamProcessorHandler) },
    { name: 'inbound-consumer', entry: join(repoRoot, inboundConsumerHandler) },
    { name: 'webhook-deliverer', entry: join(repoRoot, webhookDelivererHandler) },
  ];
  const built = [];
  for (const t of all) {
    const outfile = join(outDir, `${t.name.replace(/\W+/g, '-')}.mjs`);
    const b = await buildBundle(t.entry, outfile);
    writeFileSync(`${outfile}.meta.json`, JSON.stringify(b.metafile));
    built.push({ ...t, outfile, bytes: b.bytes, byPackage: byPackage(b.metafile) });
  }
  log(`bundles built: ${built.length}; init rounds: ${rounds}`);

  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'us-east-1',
    TABLE_NAME: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // As deployed, no NODE_OPTIONS: Node does not read source maps at load; error lines map their
    // own stacks (functions/commons/observability/stacks.ts).
  };
  const times = built.map(() => [] as number[]);
  const ratios = built.map(() => [] as number[]);
  const loads = built.map(() => [] as number[]);
  const loadRatios = built.map(() => [] as number[]);
  // One unmeasured load of each to warm the page cache.
  for (const b of built) spawnSync(process.execPath, [loader, b.outfile], { env });
  for (let round = 0; round < rounds; round++) {
    // A new order every round, so that no bundle always runs first (or right after another).
    const order = shuffle(built.map((_, i) => i));
    const roundTimes: [number, number][] = [];
    for (const i of order) {
      const b = built[i]!;
      const out = spawnSync(process.execPath, [loader, b.outfile], { env, encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`loading ${b.name} failed: ${out.stderr}`);
      roundTimes[i] = JSON.parse(out.stdout) as [number, number];
    }
    roundTimes.forEach(([ms, load], i) => {
      times[i]!.push(ms);
      ratios[i]!.push(ms / roundTimes[0]![0]);
      loads[i]!.push(load);
      loadRatios[i]!.push(load / roundTimes[0]![1]);
    });
  }
  const rows: BundleRow[] = built.map((b, i) => ({
    name: b.name,
    bytes: b.bytes,
    byPackage: b.byPackage,
    initMs: median(times[i]!),
    ratioToFloor: median(ratios[i]!),
    loadMs: median(loads[i]!),
    loadRatioToFloor: median(loadRatios[i]!),
    initMsAll: times[i]!,
  }));
  return { rows: rows.slice(3), rounds, floor: rows[0]!, traced: rows[1]!, libraries: rows[2]! };
}
