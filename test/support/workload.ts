import { call, type Response } from './api.ts';

/** A small seeded PRNG (mulberry32), so a workload is reproducible from its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
  };
}

export interface WorkloadResult {
  operations: number;
  outcomes: Record<string, Record<number, number>>;
  seconds: number;
}

const PROJECT_NAMES = ['Alpha', 'Beta', 'Gamma', 'alpha', 'Delta Force', 'Ünïcode 🚀'];
const LABEL_TITLES = ['Bug', 'bug', 'Feature', 'UI', 'Backend', 'Urgent', 'Later', 'Docs', 'QA', '🐛'];
const TASKS = Array.from({ length: 20 }, (_, i) => `task-${i}`);

/**
 * A randomized mix of every write the API offers (create/rename/delete/duplicate projects,
 * create/rename/delete labels, attach/detach single and bulk, project label sets, toggles) with `concurrency` requests in
 * flight against one workspace, so that many of them touch the same label, task and project.
 */
export async function runWorkload(opts: {
  ws: string;
  token: string;
  operations: number;
  concurrency: number;
  seed: number;
}): Promise<WorkloadResult> {
  const r = rng(opts.seed);
  const projects = new Set<string>();
  const labels = new Set<string>();
  const outcomes: Record<string, Record<number, number>> = {};
  const q = (path: string, params: Record<string, string> = {}) => `${path}?${new URLSearchParams({ company_slug: opts.ws, ...params })}`;
  const some = (set: Set<string>, fallback: string) => (set.size && r.next() < 0.9 ? r.pick([...set]) : fallback);
  const tasks = () => Array.from({ length: 2 + r.int(30) }, () => r.pick(TASKS));

  const ops: Record<string, () => Promise<Response>> = {
    'create project': async () => {
      const res = await call('POST', '/projects', { token: opts.token, body: { company_slug: opts.ws, name: r.pick(PROJECT_NAMES) } });
      if (res.status === 201) projects.add(res.body.data.slug);
      return res;
    },
    'rename project': () =>
      call('PUT', q(`/projects/${some(projects, 'ghost')}`), {
        token: opts.token,
        body: { name: r.pick(PROJECT_NAMES), status: r.pick(['in_progress', 'completed', 'archived']) },
      }),
    'delete project': async () => {
      const slug = some(projects, 'ghost');
      const res = await call('DELETE', q(`/projects/${slug}`), { token: opts.token });
      if (res.status === 200) projects.delete(slug);
      return res;
    },
    'duplicate project': async () => {
      const res = await call('POST', q(`/projects/${some(projects, 'ghost')}/duplicate`), { token: opts.token });
      if (res.status === 201) projects.add(res.body.data.slug);
      return res;
    },
    'create label': async () => {
      const res = await call('POST', q('/projects-labels'), { token: opts.token, body: { title: r.pick(LABEL_TITLES), color: 'A1B2C3' } });
      if (res.status === 201) labels.add(res.body.data.slug);
      return res;
    },
    'rename label': () =>
      call('PUT', q(`/projects-labels/${some(labels, 'ghost')}`), { token: opts.token, body: { title: r.pick(LABEL_TITLES) } }),
    'delete label': async () => {
      const slug = some(labels, 'ghost');
      const res = await call('DELETE', q(`/projects-labels/${slug}`), { token: opts.token });
      if (res.status === 200) labels.delete(slug);
      return res;
    },
    attach: () =>
      call('POST', q(`/projects-labels/${some(labels, 'ghost')}/attach`, { project_slug: some(projects, 'ghost') }), {
        token: opts.token,
        body: { task_uuid: r.pick(TASKS) },
      }),
    detach: () =>
      call('DELETE', q(`/projects-labels/${some(labels, 'ghost')}/detach`, { project_slug: some(projects, 'ghost') }), {
        token: opts.token,
        body: { task_uuid: r.pick(TASKS) },
      }),
    'bulk attach': () =>
      call('POST', q(`/projects-labels/${some(labels, 'ghost')}/attach`, { project_slug: some(projects, 'ghost') }), {
        token: opts.token,
        body: { task_uuids: tasks() },
      }),
    'bulk detach': () =>
      call('DELETE', q(`/projects-labels/${some(labels, 'ghost')}/detach`, { project_slug: some(projects, 'ghost') }), {
        token: opts.token,
        body: { task_uuids: tasks() },
      }),
    'label project': () =>
      call('POST', q(`/projects-labels/${some(labels, 'ghost')}/attach`, { project_slug: some(projects, 'ghost') }), { token: opts.token }),
    'unlabel project': () =>
      call('DELETE', q(`/projects-labels/${some(labels, 'ghost')}/detach`, { project_slug: some(projects, 'ghost') }), {
        token: opts.token,
      }),
    toggle: () =>
      call('POST', q(`/task-labels/${some(labels, 'ghost')}/toggle`, { project_slug: some(projects, 'ghost'), task_uuid: r.pick(TASKS) }), {
        token: opts.token,
        body: {},
      }),
  };
  // Weights: mostly link traffic, with enough creates and deletes to keep resources churning.
  const mix: [string, number][] = [
    ['create project', 6],
    ['rename project', 4],
    ['delete project', 3],
    ['duplicate project', 2],
    ['create label', 6],
    ['rename label', 4],
    ['delete label', 3],
    ['attach', 30],
    ['detach', 15],
    ['bulk attach', 8],
    ['bulk detach', 5],
    ['label project', 4],
    ['unlabel project', 2],
    ['toggle', 6],
  ];
  const total = mix.reduce((s, [, w]) => s + w, 0);
  const chooseOp = () => {
    let x = r.int(total);
    for (const [name, w] of mix) if ((x -= w) < 0) return name;
    return 'attach';
  };

  const started = Date.now();
  let issued = 0;
  const worker = async () => {
    while (issued < opts.operations) {
      issued++;
      const name = chooseOp();
      const res = await ops[name]!();
      const bucket = (outcomes[name] ??= {});
      bucket[res.status] = (bucket[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return { operations: issued, outcomes, seconds: (Date.now() - started) / 1000 };
}
