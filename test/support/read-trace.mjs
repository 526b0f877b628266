/* global process, URL */
// Recording what each test file reads (lib/testmap/record.ts puts this in NODE_OPTIONS): the repository's
// files and folders each process opens, reads, lists or looks for, beside the V8 coverage of what it ran.
// A test that reads docs/api.md or lists docs/ depends on it as much as on the code it executes.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join, relative, resolve } from 'node:path';

const root = process.env.TEST_MAP_ROOT;
const read = new Set();
/** A path read (a folder listed: with a trailing `/`, so that a file added to it counts). */
const note = (path, listing) => {
  if (typeof path !== 'string' && !(path instanceof URL)) return;
  const rel = relative(root, resolve(path instanceof URL ? path.pathname : path));
  if (rel.startsWith('..') || rel.startsWith('node_modules') || rel.startsWith('.test-map')) return;
  if (rel !== '' || listing) read.add(listing ? `${rel}/` : rel);
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
if (root) {
  for (const name of ['readFileSync', 'readFile', 'createReadStream', 'readdirSync', 'readdir', 'existsSync', 'statSync', 'stat', 'openSync', 'open', 'accessSync', 'access'])
    traced(fs, name);
  for (const name of ['readFile', 'readdir', 'stat', 'open', 'access']) traced(fs.promises, name);
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
