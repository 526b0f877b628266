/* global process, URL */
// Recording what each test file reads (lib/testmap/record.ts puts this in NODE_OPTIONS): the repository's
// files and folders each process reads, looks for or lists as data, and the sources each esbuild build
// bundles, beside the V8 coverage of what it ran. A test that reads docs/api.md, lists docs/ or bundles a
// handler depends on it as much as on the code it executes. A module loader reading a script to run it
// is not a read: what runs is in the coverage.
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { isAbsolute, join, relative, resolve } from 'node:path';

const root = process.env.TEST_MAP_ROOT;
const read = new Set();
const SCRIPT = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** Frames of a module loader (Node's own, tsx's, esbuild's register): a script read to be run. */
const LOADER = /node:internal\/modules|\/node_modules\/(tsx|get-tsconfig|esbuild)\//;

/** A path read (a folder listed: with a trailing `/`, so that a file added to it counts). */
const note = (path, listing) => {
  if (typeof path !== 'string' && !(path instanceof URL)) return;
  const rel = relative(root, resolve(path instanceof URL ? path.pathname : path));
  if (rel.startsWith('..') || rel.startsWith('node_modules') || rel.startsWith('.test-map')) return;
  if (rel === '' && !listing) return;
  if (!listing && SCRIPT.test(rel) && LOADER.test(new Error().stack ?? '')) return;
  read.add(listing ? `${rel}/` : rel);
};
const traced = (owner, name) => {
  const original = owner[name];
  if (typeof original !== 'function') return;
  const listing = name.startsWith('readdir');
  owner[name] = function (path, ...rest) {
    note(path, listing);
    return original.call(this, path, ...rest);
  };
};

/** esbuild reads its inputs itself (a process of its own): each build is asked for its metafile, and its inputs noted. */
function traceEsbuild() {
  const require = createRequire(join(root, 'package.json'));
  let path;
  try {
    path = require.resolve('esbuild');
    require(path);
  } catch {
    return;
  }
  // Its exports are getters: the cached module gets an object of its own, which every later import reads.
  const cached = require.cache[path];
  const esbuild = { ...cached.exports };
  cached.exports = esbuild;
  const { build } = esbuild;
  esbuild.build = async (options) => {
    const result = await build({ ...options, metafile: true });
    const base = options.absWorkingDir ?? process.cwd();
    for (const input of Object.keys(result.metafile?.inputs ?? {})) {
      const path = input.replace(/^[\w-]+:/, ''); // a namespace (file:)
      note(isAbsolute(path) ? path : join(base, path), false);
    }
    if (!options.metafile) delete result.metafile;
    return result;
  };
}

if (root) {
  for (const name of ['readFileSync', 'readFile', 'createReadStream', 'readdirSync', 'readdir', 'existsSync', 'statSync', 'stat', 'openSync', 'open', 'accessSync', 'access'])
    traced(fs, name);
  for (const name of ['readFile', 'readdir', 'stat', 'open', 'access']) traced(fs.promises, name);
  traceEsbuild();
  syncBuiltinESMExports();
  /** Writes what was read so far into `dir` (or NODE_V8_COVERAGE), and starts a new list. */
  const flush = (dir = process.env.NODE_V8_COVERAGE) => {
    if (!dir || read.size === 0) return;
    fs.writeFileSync(join(dir, `reads-${process.pid}-${Date.now()}.json`), JSON.stringify([...read]));
    read.clear();
  };
  globalThis.__testMapFlushReads = flush;
  process.on('exit', () => flush());
}
