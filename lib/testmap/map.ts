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
  commit: string;
  recordedAt: string;
  /** Test file → the repository's files (and listed folders, ending in `/`) it executed or read. */
  files: Record<string, string[]>;
}

export const MAP_DIR = join(repoRoot, '.test-map');
const MAP_FILE = join(MAP_DIR, 'map.json');

export function readMap(): TestMap | undefined {
  return existsSync(MAP_FILE) ? (JSON.parse(readFileSync(MAP_FILE, 'utf8')) as TestMap) : undefined;
}

export function writeMap(map: TestMap) {
  mkdirSync(MAP_DIR, { recursive: true });
  writeFileSync(MAP_FILE, `${JSON.stringify(map, null, 1)}\n`);
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
function summarizeFile(dir: string): string[] {
  const used = new Set<string>();
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    if (name.startsWith('coverage-')) {
      for (const script of (JSON.parse(text) as Coverage).result) {
        const file = repoPath(script.url);
        if (file && script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0)) used.add(file);
      }
    } else if (name.startsWith('reads-')) {
      for (const read of JSON.parse(text) as string[]) {
        if (read === '/')
          used.add(read); // the repository's root listed
        else if (!read.startsWith('node_modules/')) used.add(read);
      }
    }
  }
  return [...used].sort();
}

/** A recording's folder, summarized: each test file recorded, and what it used. */
export function summarize(recording: string): Record<string, string[]> {
  const files: Record<string, string[]> = {};
  const root = join(recording, 'files');
  for (const entry of existsSync(root) ? readdirSync(root) : []) {
    const dir = join(root, entry);
    const testFile = readFileSync(join(dir, 'test-file.txt'), 'utf8');
    files[testFile] = summarizeFile(dir);
  }
  return files;
}
