import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '#lib/paths';

/**
 * What each test file executes and reads of the repository, across every process it reaches (its
 * worker, its local API and stream processor, the tools it runs), as a recording run saw it at `commit`
 * (lib/testmap/record.ts). `npm run test:changed` chooses by it (select.ts).
 */
export interface TestMap {
  /** The state recorded: a commit, or a snapshot of the working tree on top of the HEAD of then (changes.ts). */
  commit: string;
  recordedAt: string;
  /** Test file → what it used of the repository. */
  files: Record<string, Used>;
}

export interface Used {
  /** The files a function of which ran (the module's own top level included). */
  ran: string[];
  /** The files it read as data (a module loader's reads of a script aside; esbuild's inputs in), and the folders it listed (`dir/`). */
  read: string[];
}

/** Where the map lives (gitignored): map.json, and a recording's raw files while it runs. */
export const MAP_DIR = join(repoRoot, '.test-map');

export function readMap(dir = MAP_DIR): TestMap | undefined {
  const file = join(dir, 'map.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TestMap) : undefined;
}

export function writeMap(map: TestMap, dir = MAP_DIR) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'map.json'), `${JSON.stringify(map, null, 1)}\n`);
}

/** A repository path of a script's URL or a read path, or undefined outside it (packages, Node's own, temp folders). */
function repoPath(path: string): string | undefined {
  let file = path;
  if (file.startsWith('file://')) file = fileURLToPath(file.split('?')[0]!);
  if (!file.startsWith('/')) return undefined;
  const rel = relative(repoRoot, file);
  return rel.startsWith('..') || rel.startsWith('node_modules/') || rel === '' ? undefined : rel;
}

type Coverage = { result: { url: string; functions: { ranges: { count: number }[] }[] }[] };

/** One test file's folder of a recording: the files its processes ran (a function of them counted) and read. */
function summarizeFile(dir: string): Used {
  const ran = new Set<string>();
  const read = new Set<string>();
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    if (name.startsWith('coverage-')) {
      for (const script of (JSON.parse(text) as Coverage).result) {
        const file = repoPath(script.url);
        if (file && script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0)) ran.add(file);
      }
    } else if (name.startsWith('reads-')) {
      for (const path of JSON.parse(text) as string[]) read.add(path); // `/`: the repository's root listed
    }
  }
  return { ran: [...ran].sort(), read: [...read].sort() };
}

/** A recording's folder, summarized: each test file recorded, and what it used. */
export function summarize(recording: string): Record<string, Used> {
  const files: Record<string, Used> = {};
  const root = join(recording, 'files');
  for (const entry of existsSync(root) ? readdirSync(root) : []) {
    const dir = join(root, entry);
    const testFile = readFileSync(join(dir, 'test-file.txt'), 'utf8');
    files[testFile] = summarizeFile(dir);
  }
  return files;
}
