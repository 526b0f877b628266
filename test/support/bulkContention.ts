import { describe, expect, test } from 'vitest';
import { apiUrl, call, tokenFor, uniqueWorkspace } from './api.ts';
import { settledViolations } from './settle.ts';

/**
 * Ordinary parallel use is not an overload: bulk attaches of one label to overlapping sets of tasks of
 * one project, sent at once, all succeed (no 503), and the links are their union with exact counters.
 * On a loaded machine (as under the whole suite) the previous code answered some of them 503: each
 * request read its tasks with one Query per task, all at once, and the calls of a few such requests
 * waited for connections until the client's connect timeout. A request now reads 8 at a time.
 */
const task = (i: number) => `t${String(i).padStart(3, '0')}`;

const CASES = [
  ['10 bulk attaches of 40 tasks each, overlapping by 34', 10, 40, 6],
  ['16 bulk attaches of 100 tasks each, overlapping by 90', 16, 100, 10],
  ['24 bulk attaches of 64 tasks each, all the same tasks', 24, 64, 0],
] as const;

interface Target {
  base: string;
  token: string;
  ws: string;
}

/** Sends the attaches at once and checks every answer and the links; the label's slug and how many tasks carry it. */
async function contend(t: Target, project: string, requests: number, size: number, step: number): Promise<{ slug: string; tasks: number }> {
  const q = (path: string, params: Record<string, string> = {}) => `${path}?${new URLSearchParams({ company_slug: t.ws, ...params })}`;
  const send = (method: string, path: string, body?: unknown) => call(method, path, { base: t.base, token: t.token, body });
  expect((await send('POST', '/projects', { company_slug: t.ws, name: project })).status).toBe(201);
  const label = await send('POST', q('/projects-labels'), { title: `Bug ${project}`, color: 'FF0000' });
  expect(label.status).toBe(201);
  const slug = label.body.data.slug as string;
  const sets = Array.from({ length: requests }, (_, r) => Array.from({ length: size }, (_, i) => task(r * step + i)));
  const answers = await Promise.all(
    sets.map((tasks) => send('POST', q(`/projects-labels/${slug}/attach`, { project_slug: project }), { task_uuids: tasks })),
  );
  expect(
    answers.map((a) => a.status),
    answers.find((a) => a.status !== 200)?.text,
  ).toEqual(answers.map(() => 200));
  for (const [r, a] of answers.entries()) {
    expect(a.body.data.map((x: { task_uuid: string }) => x.task_uuid)).toEqual(sets[r]);
    for (const x of a.body.data) expect(x.labels.map((l: { slug: string }) => l.slug)).toContain(slug);
  }
  const carried: string[] = [];
  for (let page = 1; ; page++) {
    const res = await send('GET', q(`/projects-labels/${slug}/tasks`, { project_slug: project, per_page: '100', page: String(page) }));
    carried.push(...(res.body.data as string[]));
    if (res.body.meta.next_cursor === null) break;
  }
  const union = [...new Set(sets.flat())].sort();
  expect(carried.sort()).toEqual(union);
  return { slug, tasks: union.length };
}

/** Once the stream has drained: the project counts the label once, and the label counts its tasks. */
async function expectCounters(t: Target, project: string, carried: { slug: string; tasks: number }): Promise<void> {
  const q = (path: string, params: Record<string, string> = {}) => `${path}?${new URLSearchParams({ company_slug: t.ws, ...params })}`;
  const stats = await call('GET', q(`/projects/${project}/stats`), { base: t.base, token: t.token });
  expect(stats.body.data.labels_count).toBe(1);
  const set = await call('GET', q('/projects-labels', { project_slug: project }), { base: t.base, token: t.token });
  expect(set.body.data).toEqual([expect.objectContaining({ slug: carried.slug, tasks_count: carried.tasks })]);
}

/** One of the cases, in a file of its own (test/hostile/bulk-contention-*.test.ts): the run's workers share them. */
export function contentionCase(index: number): void {
  describe('through the local API', () => {
    test.each([CASES[index]!])(
      '%s: every one answers 200, the links are the union, counters exact',
      async (_name, requests, size, step) => {
        const ws = uniqueWorkspace('bulk');
        const target = { base: apiUrl(), token: await tokenFor(ws), ws };
        const carried = await contend(target, 'web', requests, size, step);
        // Counters (the label's use in the project, the project's labels_count) equal a recount.
        expect(await settledViolations([ws])).toEqual([]);
        await expectCounters(target, 'web', carried);
      },
    );
  });
}
