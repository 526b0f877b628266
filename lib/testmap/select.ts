import type { TestMap } from './map.ts';

/**
 * Changes that can change any test's outcome however the map reads: what installs and configures the run,
 * and the tests' own support (the setup every file loads, the global setup in vitest's process, which the
 * recording does not see per file).
 */
const WHOLE_SUITE = [
  /^package(-lock)?\.json$/,
  /^vitest\.config\.ts$/,
  /^tsconfig(\.\w+)?\.json$/,
  /^test\/support\//,
  /^\.npmrc$/,
  /^\.nvmrc$/,
];
const isTestFile = (path: string) => /^test\/.+\.test\.ts$/.test(path);

export interface Selection {
  /** Why the whole suite runs (a change the map cannot answer for), or undefined. */
  whole: string | undefined;
  /** The test files chosen, in the order of the suite's files. */
  tests: string[];
  /** For each test chosen, the changed file that chose it (the first). */
  because: Record<string, string>;
}

/** Whether a test that read `entry` (a file, or a folder it listed: `dir/`) may see a change to `path`. */
function touches(entry: string, path: string): boolean {
  if (entry === path) return true;
  if (!entry.endsWith('/')) return false;
  return entry === '/' ? !path.includes('/') : path.startsWith(entry);
}

/**
 * The test files that can fail because of `changed`: each changed test file itself, each file the map has
 * executing or reading a changed file, and each test file the map does not know (new, or not recorded);
 * the whole suite for a change of the run's setup. A script whose change is in its comments and layout
 * alone (`commentsOnly`) chooses only the files that read it as data (a comment does not run). A test file
 * left out never ran a changed line of code nor read a changed file when the map was recorded.
 */
export function selectTests(
  changed: string[],
  map: TestMap,
  testFiles: string[],
  commentsOnly: (path: string) => boolean = () => false,
): Selection {
  const all = { whole: undefined, tests: testFiles, because: {} };
  const setup = changed.find((path) => WHOLE_SUITE.some((pattern) => pattern.test(path)));
  if (setup) return { ...all, whole: `${setup} changed (the run's setup)` };
  const because: Record<string, string> = {};
  for (const test of testFiles) {
    const used = map.files[test];
    if (!used) {
      because[test] = '(not in the map)';
      continue;
    }
    const hit = changed.find(
      (path) => path === test || used.read.some((entry) => touches(entry, path)) || (!commentsOnly(path) && used.ran.includes(path)),
    );
    if (hit) because[test] = hit;
  }
  for (const path of changed) if (isTestFile(path) && testFiles.includes(path)) because[path] ??= path;
  return { whole: undefined, tests: testFiles.filter((t) => t in because), because };
}
