import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { INBOUND_TYPES, OUTBOUND_TYPES } from '#domain/eventNames';
import { routes } from '#http/routes';
import { repoRoot } from '#lib/paths';
import { scriptsNamed } from '#support/docExamples';
import { packageScripts } from '#support/tools';

/**
 * The documentation holds together: every relative link resolves (its anchor too), every `npm run`
 * script it names exists, every route has its example in docs/api.md, and nothing in the repository
 * points at a file outside it (the project stands alone).
 */
const PAGES = ['README.md', 'BENCHMARKS.md', ...readdirSync(join(repoRoot, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);
const text = (file: string) => readFileSync(join(repoRoot, file), 'utf8');
const scripts = Object.keys(packageScripts());

/** The anchors GitHub gives a page's headings. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = !inCode && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Markdown links outside code blocks and code spans: [text](target). */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the documentation holds together', () => {
  test.each(PAGES)('%s: every relative link resolves, anchors included, inside the repository', (page) => {
    for (const target of links(text(page))) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path ? resolve(dirname(join(repoRoot, page)), path) : join(repoRoot, page);
      expect(relative(repoRoot, file).startsWith('..'), `${page}: ${target} leaves the repository`).toBe(false);
      expect(existsSync(file), `${page}: ${target} does not exist`).toBe(true);
      if (anchor) expect([...anchors(readFileSync(file, 'utf8'))], `${page}: ${target}`).toContain(anchor);
    }
  });

  test.each(PAGES)('%s: every npm script it names exists', (page) => {
    for (const script of scriptsNamed(text(page))) expect(scripts, `${page}: npm run ${script}`).toContain(script);
  });

  test('every route has its request and answer in docs/api.md', () => {
    const api = text('docs/api.md');
    for (const route of routes) expect(api, `${route.method} ${route.path}`).toContain(`#### \`${route.method} ${route.path}\``);
  });

  test('docs/events.md describes every event the service publishes and every one it takes in', () => {
    const events = text('docs/events.md');
    for (const type of [...OUTBOUND_TYPES, ...INBOUND_TYPES]) expect(events, type).toContain(`\`${type}\``);
  });

  test('the README is a front door: at most 200 lines, a table of every page of docs/', () => {
    const readme = text('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    for (const page of PAGES.filter((p) => p.startsWith('docs/'))) expect(readme).toContain(`](${page})`);
  });

  test('nothing in the repository points at a file outside it', () => {
    const outside = /\.\.\/shared|DESIGN\.md|STYLE\.md|spec\/project-label-service/;
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(join(repoRoot, dir))) {
        const path = dir ? `${dir}/${name}` : name;
        if (['node_modules', '.git', 'cdk.out', '.data', '.bench', 'package-lock.json'].includes(name)) continue;
        if (statSync(join(repoRoot, path)).isDirectory()) walk(path);
        else if (/\.(ts|js|cjs|mjs|md|json|sh)$/.test(name) || path.startsWith('.ci/')) {
          const lines = text(path).split('\n');
          lines.forEach((line, i) => {
            if (outside.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`);
          });
        }
      }
    };
    walk('');
    expect(found).toEqual([]);
  });
});
