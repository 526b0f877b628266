import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import type { TestMap } from '#lib/testmap/map';
import { record } from '#lib/testmap/record';
import { selectTests } from '#lib/testmap/select';

/**
 * npm run test:changed's map, recorded for real on a small fixture: three test files written for this
 * test (one creates a label through the local API, one a project, one, a unit test, reads a page of docs/), recorded
 * as `npm run test:changed` records the suite (a nested vitest run, each file in a process of its own
 * with a local API of its own), then the choice a change gets from it.
 */
const id = randomBytes(4).toString('hex');
const fixture = `test/testmap-fixture-${id}`;
// The page reader needs no stack: a unit test (vitest.config.ts), as such a file of the suite would be.
const unitFixture = `test/unit/testmap-fixture-${id}`;
const files = { labels: `${fixture}/labels.test.ts`, projects: `${fixture}/projects.test.ts`, docs: `${unitFixture}/docs.test.ts` };
const creating = (path: string, body: string) => `import { expect, test } from 'vitest';
import { call, tokenFor, uniqueWorkspace } from '#support/api';
test('creates', async () => {
  const ws = uniqueWorkspace('fixture');
  const res = await call('POST', '${path}?company_slug=' + ws, { token: await tokenFor(ws), body: ${body} });
  expect(res.status).toBe(201);
});
`;
const SOURCES = {
  [files.labels]: creating('/projects-labels', `{ title: 'Fixture', color: 'FF0000' }`),
  [files.projects]: creating('/projects', `{ name: 'Fixture' }`),
  [files.docs]: `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
test('reads', () => expect(readFileSync(join(repoRoot, 'docs', 'api.md'), 'utf8').length).toBeGreaterThan(0));
`,
};

let map: TestMap;
let code: number;
const mapDir = mkdtempSync(join(tmpdir(), 'pls-testmap-'));

beforeAll(() => {
  for (const dir of [fixture, unitFixture]) mkdirSync(join(repoRoot, dir));
  for (const [file, source] of Object.entries(SOURCES)) writeFileSync(join(repoRoot, file), source);
  ({ map, code } = record(Object.values(files), { dir: mapDir, vitestArgs: ['--maxWorkers=1'], quiet: true }));
}, 120_000);
afterAll(() => {
  for (const dir of [fixture, unitFixture]) rmSync(join(repoRoot, dir), { recursive: true, force: true });
  rmSync(mapDir, { recursive: true, force: true });
});

describe('the recording', () => {
  test('holds, for each file, what its processes executed and read: its own route, not the others', () => {
    expect(code).toBe(0);
    expect(Object.keys(map.files).sort()).toEqual(Object.values(files).sort());
    const used = (file: string) => [...map.files[file]!.ran, ...map.files[file]!.read];
    // Executed in the file's local API (another process), loaded on the route's first request.
    expect(used(files.labels)).toContain('functions/labels/create.ts');
    expect(used(files.labels)).not.toContain('functions/projects/create.ts');
    expect(used(files.projects)).toContain('functions/projects/create.ts');
    expect(used(files.projects)).not.toContain('functions/labels/create.ts');
    for (const file of [files.labels, files.projects])
      expect(used(file)).toEqual(expect.arrayContaining(['lib/local/gateway.ts', 'bin/start.ts']));
    expect(map.files[files.labels]!.ran).toContain('functions/labels/create.ts');
    // Read, not executed.
    expect(map.files[files.docs]!.read).toContain('docs/api.md');
    expect(used(files.docs)).not.toContain('functions/labels/create.ts');
    expect(used(files.labels)).not.toContain('docs/api.md');
  });
});

describe('the choice a change gets', () => {
  const all = () => [...Object.values(files), 'test/unit/unrecorded.test.ts'].sort();
  const chosen = (...changed: string[]) => selectTests(changed, map, all()).tests.filter((t) => t !== 'test/unit/unrecorded.test.ts');

  test('a change to a handler chooses the files that call its route; to a page, the files that read it', () => {
    expect(chosen('functions/labels/create.ts')).toEqual([files.labels]);
    expect(chosen('functions/projects/create.ts')).toEqual([files.projects]);
    expect(chosen('docs/api.md')).toEqual([files.docs]);
    // Every file of the suite's local project starts with its stack moving to a database of its own, through the API.
    expect(chosen('lib/local/gateway.ts').sort()).toEqual([files.labels, files.projects].sort());
    expect(chosen('functions/webhooks/create.ts')).toEqual([]);
  });

  test('a change to test support chooses the whole suite; a test file the map does not know is always chosen', () => {
    const support = selectTests(['test/support/api.ts'], map, all());
    expect(support.whole).toMatch(/test\/support\/api\.ts/);
    expect(support.tests).toEqual(all());
    expect(selectTests(['functions/labels/create.ts'], map, all()).tests).toContain('test/unit/unrecorded.test.ts');
  });
});
