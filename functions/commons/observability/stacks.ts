import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Stack traces in the source's terms, paid for only when an error is logged.
 *
 * A deployed function is one minified bundle with its source map beside it. Node can map stacks
 * itself (`--enable-source-maps`), but then it reads the map and measures every line of the bundle
 * at load, on every cold start, for the rare stack that needs it (BENCHMARKS.md: a few percent of
 * init). Instead the functions run without it, and the error lines rewrite their stacks here: the
 * map of a bundle is read once, at the first error logged, and each frame in that bundle becomes
 * its original file, line and column (`functions/commons/http/endpoint.ts:42:7`). Frames with no
 * map beside their file (Node's own, the local API running the sources) are left as they are, as
 * is everything when Node maps stacks itself.
 */

/** `    at name (file:line:column)` or `    at file:line:column` (a frame of a V8 stack). */
const FRAME = /^(\s+at (?:.*? \()?)(.+?):(\d+):(\d+)(\)?)$/;

/** Source maps by bundle path; null when the file has none (or it cannot be read). */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = null;
    const path = `${file}.map`;
    if (existsSync(path)) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(path, 'utf8')) as SourceMapPayload);
      } catch {
        map = null;
      }
    }
    maps.set(file, map);
  }
  return map;
}

function filePath(location: string): string | undefined {
  if (!location.startsWith('file://')) return location.startsWith('/') ? location : undefined;
  try {
    return fileURLToPath(location);
  } catch {
    return undefined;
  }
}

/** A source path as the map names it (relative to the bundle's folder), shown from the repository root. */
function sourceName(source: string): string {
  const path = source.startsWith('file://') ? fileURLToPath(source) : source;
  const inRepo = /(?:^|\/)((?:functions|lib|node_modules)\/.*)$/.exec(path);
  return inRepo ? inRepo[1]! : path.replace(/^(?:\.\.?\/)+/, '');
}

/** One frame in the source's terms, or as it was when its file has no map (or no entry there). */
function mapFrame(line: string): string {
  const frame = FRAME.exec(line);
  if (!frame) return line;
  const [, head, location, row, column, tail] = frame;
  const file = filePath(location!);
  const map = file === undefined ? null : mapOf(file);
  if (!map) return line;
  const entry = map.findEntry(Number(row) - 1, Number(column) - 1) as Partial<{
    generatedLine: number;
    originalSource: string;
    originalLine: number;
    originalColumn: number;
  }>;
  // The nearest mapping before the position: only trusted on the frame's own line.
  if (entry.generatedLine !== Number(row) - 1) return line;
  if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return line;
  return `${head}${sourceName(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}${tail}`;
}

/** `stack` with every frame of a mapped bundle in the source's terms. */
export function sourceMappedStack(stack: string): string {
  return stack.split('\n').map(mapFrame).join('\n');
}

/**
 * The error, its stack (and its causes' stacks) rewritten in the source's terms, for a log line.
 * Rewrites in place (an error is logged at the end of its life) and answers the same value, so
 * that `{ error: sourceMapped(error) }` reads as the line it is.
 */
export function sourceMapped<T>(error: T): T {
  if (process.sourceMapsEnabled) return error;
  const seen = new Set<unknown>();
  for (let e: unknown = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (typeof e.stack === 'string') e.stack = sourceMappedStack(e.stack);
  }
  return error;
}
