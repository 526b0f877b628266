import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import { freePort } from '#support/ports';
import { npmTools, runTool, type Ran } from '#support/tools';

/**
 * Every tool `npm run` starts takes one argument parser (lib/cli.ts): `--help` prints the usage and
 * exits 0 having done nothing else; an unknown option, an option without its value or a wrong number
 * of arguments is one sentence and the usage on stderr, exit 2, before the tool prints or does
 * anything (no "Using the local stack", no file written). The tools run side by side, each once per
 * case, on a data directory and ports of their own. `--help` runs as `npm run` starts each tool (under
 * tsx) and as the other tests run it (built: test/support/toolBuilds.ts), and must be the same.
 */
/** What a tool must not write when it only answers --help or a mistake: the generated files and the samples. */
const WATCHED = [
  'openapi.json',
  'asyncapi.json',
  'docs/event-reference.md',
  'docs/capacity.md',
  'BENCHMARKS.md',
  ...readdirSync(join(repoRoot, 'events')).map((f) => `events/${f}`),
];
const snapshot = () =>
  WATCHED.map((f) => ({ f, mtime: statSync(join(repoRoot, f)).mtimeMs, text: readFileSync(join(repoRoot, f), 'utf8') }));

/** `work` for every item, as many at a time as there are cores (each is a Node process of its own). */
async function inParallel<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(2, availableParallelism()) }, worker));
  return results;
}

/** A mistake answered as the house says: the sentence first, then the usage, on stderr only; exit 2. */
export function expectUsageError(res: Ran, sentence: RegExp): void {
  expect(res.code, res.stdout + res.stderr).toBe(2);
  expect(res.stdout).toBe('');
  const [first, ...rest] = res.stderr.trimEnd().split('\n');
  expect(first).toMatch(sentence);
  expect(rest.join('\n')).toMatch(/^usage:/);
  expect(res.stderr).not.toMatch(/Using |\n\s+at |Error:|ERR_PARSE_ARGS/);
}

/**
 * The cases above for every other tool of package.json (`part` 1: the first, third, ...; 2: the rest):
 * test/hostile/cli-arguments-1 and -2 take one part each, so that each file stays far under a minute.
 */
export function everyToolHonoursItsArguments(part: 1 | 2): void {
  const parts = 2;
  const tools = npmTools().filter((_, i) => i % parts === part - 1);
  const dataDir = mkdtempSync(join(tmpdir(), 'pls-cli-args-'));
  describe(`every npm tool honours --help and refuses an unknown option, and then does nothing else (part ${part} of ${parts})`, () => {
    const before = snapshot();
    let env: Record<string, string>;
    let help: Map<string, Ran>;
    let helpBuilt: Map<string, Ran>;
    let bogus: Map<string, Ran>;
    let badSetting: Map<string, Ran>;

    beforeAll(async () => {
      // Wherever a tool would reach for the stack or its files, it finds a place of this test's own.
      env = {
        DATA_DIR: dataDir,
        PORT: String(await freePort()),
        DYNAMODB_PORT: String(await freePort()),
        LOG_FILE: join(dataDir, 'logs.jsonl'),
        METRICS_FILE: join(dataDir, 'metrics.jsonl'),
        EVENTS_FILE: join(dataDir, 'events.jsonl'),
      };
      const ways = {
        help: [['--help'], true, {}],
        helpBuilt: [['--help'], false, {}],
        bogus: [['--bogus'], false, {}],
        // What npm start refuses, every tool refuses, before its arguments and before anything else.
        badSetting: [[], false, { POWERTOOLS_LOG_LEVEL: 'VERBOSE' }],
      } as const;
      const runs = tools.flatMap(({ script, file }) => (Object.keys(ways) as (keyof typeof ways)[]).map((way) => ({ script, file, way })));
      const ran = await inParallel(runs, ({ file, way }) =>
        runTool(file, [...ways[way][0]], { ...env, ...ways[way][2] }, 90_000, { asNpmRuns: ways[way][1] }),
      );
      const answers = (way: keyof typeof ways) => new Map(runs.flatMap((r, i) => (r.way === way ? [[r.script, ran[i]!] as const] : [])));
      help = answers('help');
      helpBuilt = answers('helpBuilt');
      bogus = answers('bogus');
      badSetting = answers('badSetting');
    });
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    test.each(tools.map((t) => t.script))('%s --help: the usage on stdout, exit 0; the same built', (script) => {
      const res = help.get(script)!;
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/^usage:\s+npm (start|run )/);
      expect(res.stderr).toBe('');
      expect(helpBuilt.get(script)).toEqual(res);
    });

    test.each(tools.map((t) => t.script))('%s --bogus: one sentence and the usage on stderr, exit 2', (script) => {
      expectUsageError(
        bogus.get(script)!,
        /^Unknown option --bogus: (use only the options the usage below names|this command takes no options)\.$/,
      );
    });

    test.each(tools.map((t) => t.script))('%s with POWERTOOLS_LOG_LEVEL=VERBOSE: the sentence npm start says, exit 1', (script) => {
      const res = badSetting.get(script)!;
      expect(res.code, res.stdout + res.stderr).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr.trimEnd()).toBe(
        'POWERTOOLS_LOG_LEVEL is "VERBOSE": use one of TRACE, DEBUG, INFO, WARN, ERROR, SILENT or CRITICAL, or unset it (then INFO).',
      );
    });

    test('none of them wrote a generated file, a sample event or anything in the data directory', () => {
      expect(snapshot()).toEqual(before);
      expect(readdirSync(dataDir)).toEqual([]);
    });
  });
}
