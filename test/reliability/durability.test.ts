import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { call } from '#support/api';
import { freePort } from '#support/ports';
import { startLocalApi, type LocalApi } from '#support/local-api';

/**
 * Durability: the local server and its DynamoDB Local are killed with SIGKILL in the middle of a
 * write workload and restarted on the same data: every write acknowledged with 2xx is still there.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'pls-durability-'));
let api: LocalApi | undefined;
afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function request(base: string, token: string, method: string, path: string, body?: unknown) {
  return call(method, path, { base, token, body });
}

test('every acknowledged write survives a SIGKILL of the server and its database', async () => {
  const port = await freePort();
  const dynamodbPort = await freePort();
  const env = { DATA_DIR: dataDir };
  api = await startLocalApi({ args: [], port, dynamodbPort, env });
  const token = /pls_[A-Za-z0-9_-]+/.exec(api.output())![0];
  const ws = 'acme-corp';
  const q = (path: string, params: Record<string, string> = {}) => `${path}?${new URLSearchParams({ company_slug: ws, ...params })}`;
  const base = api.url;
  const label = await request(base, token, 'POST', q('/projects-labels'), { title: 'Durable', color: '00FF00' });
  expect(label.status).toBe(201);

  const acked = { projects: [] as string[], links: [] as [string, string][] };
  let stop = false;
  let attempts = 0;
  const writer = async (id: number) => {
    for (let i = 0; !stop; i++) {
      attempts++;
      try {
        const p = await request(base, token, 'POST', '/projects', { company_slug: ws, name: `P ${id}-${i}` });
        if (p.status !== 201) continue;
        acked.projects.push(p.body.data.slug);
        const a = await request(base, token, 'POST', q('/projects-labels/durable/attach', { project_slug: p.body.data.slug }), {
          task_uuid: `t-${id}-${i}`,
        });
        if (a.status === 200) acked.links.push([p.body.data.slug, `t-${id}-${i}`]);
      } catch {
        return; // connection refused or reset: the server is gone
      }
    }
  };
  const writers = Array.from({ length: 8 }, (_, i) => writer(i));
  // Kill mid-stream: once enough writes were acknowledged (or after 30 s on a very slow machine).
  const deadline = Date.now() + 30_000;
  while ((acked.projects.length < 40 || acked.links.length < 30) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const javaPid = Number(/pid (\d+)/.exec(api.output())![1]);
  api.process.kill('SIGKILL');
  process.kill(javaPid, 'SIGKILL');
  stop = true;
  await Promise.all(writers);
  await api.stop();
  console.log(
    `durability: ${attempts} write attempts, ${acked.projects.length} projects and ${acked.links.length} links acknowledged before SIGKILL`,
  );
  expect(acked.projects.length).toBeGreaterThan(5);
  expect(acked.links.length).toBeGreaterThan(5);

  // DynamoDB Local needs its port back; wait until the killed process has released it.
  await new Promise((r) => setTimeout(r, 500));
  api = await startLocalApi({ args: [], port, dynamodbPort, env });
  for (const slug of acked.projects) {
    expect((await request(api.url, token, 'GET', q(`/projects/${slug}`))).status, slug).toBe(200);
  }
  for (const [project, task] of acked.links) {
    const labels = await request(api.url, token, 'GET', q('/projects-labels', { project_slug: project, task_uuid: task }));
    expect(
      labels.body.data.map((l: { slug: string }) => l.slug),
      `${project}/${task}`,
    ).toEqual(['durable']);
  }
});
