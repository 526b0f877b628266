import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from '#http/routes';
import { MIX_MESSAGES, MIX_REQUESTS } from '#lib/capacity/mix';
import { WORKLOAD } from '#lib/capacity/scenarios';
import { repoRoot } from '#lib/paths';
import { FIXTURES } from '#local/sampleFixtures';
import type { Response } from '#support/api';
import { openLoop, type SaturationStack } from './openLoop.ts';
import { refusalsSince } from './refusals.ts';
import { log } from './stats.ts';

/**
 * Section 6, the mix: the capacity model's realistic mix (lib/capacity/mix.ts, the same shares) sent to
 * one workspace, one project and one label, at steps of its predicted saturation rate (docs/capacity.md,
 * divided by the simulator's scale). Below the knee nothing is refused; past it the first key to
 * saturate refuses what draws on it. Its refusals begin between the last step refusing nothing and the first refusing
 * any (what the report holds to the model: report.ts, mixOnset); the knee kept here lies between the highest step
 * refusing at most 1% and the next. A step's refusals are 503s among its answers. Reads go as the route table's
 * samples send them (what the model measured); writes take targets of their own (a new task for each
 * attach and toggle, a task attached earlier for each detach, new names, a pool of projects and labels
 * to delete); the inbound events of the mix go to the local bus beside them.
 */
export interface MixSaturation {
  /** The model's rate at DynamoDB's limits, and at the simulator's. */
  modelled: number;
  predicted: number;
  firstKey: string;
  /** Each step's 503s, and the partitions they were refused on (the log's causes, most first). */
  steps: {
    factor: number;
    offered: number;
    answers: number;
    refused: number;
    /** Its 429s: the workspace's rate limits' refusals, where they are on. */
    limited: number;
    /** Its 2xx answers. */
    ok: number;
    /**
     * The rate it was answered at: its answers over the time from its first request to its last answer (at least the
     * step). Under the offered rate, the stack could not keep up (a slow machine): its partitions met less than offered.
     */
    served?: number;
    /** The mix's inbound events the local bus did not take (a connection reset under load): the step was that much lighter. */
    eventsLost?: number;
    refusedOn?: [string, number][];
    /** The workspace's labels as the step began and as it ended (every labels list of the mix reads them all). */
    labels?: [number, number];
  }[];
  /** The labels of the model's workspace (lib/capacity/scenarios.ts). */
  modelLabels?: number;
  /** The knee: midway between the last step refusing at most 1% and the first refusing more (at most the lowest step, at least the highest). */
  measured: number;
}

const FACTORS = [0.7, 0.85, 1, 1.1, 1.2, 1.3, 1.5];
const REFUSED_AT_MOST = 0.01;

/** The mix's predicted saturation at DynamoDB's limits, and the key, from docs/capacity.md. */
export function modelledMix(page = readFileSync(join(repoRoot, 'docs', 'capacity.md'), 'utf8')): { key: string; rate: number } {
  const found = /\*\*The first key to saturate is `([^`]+)`, at ([\d,.]+) requests per second of the mix\*\*/.exec(page);
  if (!found) throw new Error('docs/capacity.md names no first key to saturate under the mix');
  return { key: found[1]!, rate: Number(found[2]!.replace(/,/g, '')) };
}

/** The workspace's labels now (the list without a limit is the whole list). */
async function labelCount(stack: SaturationStack): Promise<number> {
  return ((await stack.patiently('GET', '/projects-labels')).body.data as unknown[]).length;
}

/** How many requests of `row` the steps send, at their shares of the mix. */
function deletesOf(row: string, predicted: number, stepSeconds: number, factors: readonly number[]): number {
  const share = MIX_REQUESTS.find(([name]) => name === row)![1] / MIX_REQUESTS.reduce((sum, [, n]) => sum + n, 0);
  return factors.reduce((sum, factor) => sum + Math.ceil(predicted * factor * stepSeconds), 0) * share;
}

/** Slot i's route: shares spread evenly over the slots (a golden-ratio sequence through the cumulative shares). */
function scheduleOf(shares: readonly [string, number][]): (i: number) => string {
  const total = shares.reduce((sum, [, n]) => sum + n, 0);
  return (i) => {
    let at = ((i * 0.6180339887) % 1) * total;
    for (const [row, n] of shares) if ((at -= n) < 0) return row;
    return shares[shares.length - 1]![0];
  };
}

export async function measureMixSaturation(
  stack: SaturationStack,
  scale: number,
  stepSeconds: number,
  factors: readonly number[] = FACTORS,
): Promise<MixSaturation> {
  const { key, rate } = modelledMix();
  const predicted = rate / scale;
  const { send, patiently, project, label } = stack;
  const targets = { ws: 'acme-corp', project, label, task: FIXTURES.task, newLabel: FIXTURES.newLabel };
  const sample = (name: string) => routes.find((r) => `${r.method} ${r.path}` === name)!.sample(targets);
  const inProject = `project_slug=${project}`;
  // What the writes act on: tasks to detach, projects and labels to delete.
  const attached: string[] = [];
  const doomedProjects: string[] = [];
  const doomedLabels: string[] = [];
  for (let i = 0; i < 40; i++) {
    await patiently('POST', `/projects-labels/${label}/attach?${inProject}`, { task_uuid: `pool-${i}` });
    attached.push(`pool-${i}`);
  }
  // Enough to delete for every step (a pool that ran out would delete the mix's own project or label: its cascade,
  // every link of the hot project, then holds the stream for minutes at these limits).
  const pool = (row: string) => Math.ceil(deletesOf(row, predicted, stepSeconds, factors) * 1.5) + 2;
  for (let i = 0; i < pool('DELETE /projects/{slug}'); i++)
    doomedProjects.push((await patiently('POST', '/projects', { name: `Doomed ${i}` })).body.data.slug as string);
  // Labels to delete are those the mix makes (it makes twice as many as it deletes), and one spare at each step's start:
  // a pool made beforehand would put its labels on every labels list the mix reads (the model's workspace has
  // WORKLOAD.labels), and the mix's own would pile up from step to step, so what a step leaves is deleted before the next.
  const baseLabels = await labelCount(stack);
  let spares = 0;
  const keepOneSpare = async () => {
    while (doomedLabels.length > 1) await patiently('DELETE', `/projects-labels/${doomedLabels.shift()!}`);
    if (doomedLabels.length === 0)
      doomedLabels.push(
        (await patiently('POST', '/projects-labels', { title: `Spare ${spares++}`, color: '999999' })).body.data.slug as string,
      );
    await stack.settle();
  };

  let n = 0;
  const write: Record<string, () => Promise<Response>> = {
    'POST /projects-labels/{slug}/attach': () => {
      const task = `mix-${n++}`;
      attached.push(task);
      return send('POST', `/projects-labels/${label}/attach?${inProject}`, { task_uuid: task });
    },
    'DELETE /projects-labels/{slug}/detach': () =>
      send('DELETE', `/projects-labels/${label}/detach?${inProject}`, { task_uuid: attached.shift() ?? `none-${n++}` }),
    'POST /task-labels/{slug}/toggle': () => send('POST', `/task-labels/${label}/toggle?${inProject}&task_uuid=toggle-${n++}`, {}),
    'POST /projects': () => send('POST', '/projects', { name: `Mix project ${n++}` }),
    'PUT /projects/{slug}': () => send('PUT', `/projects/${project}`, { description: `Revision ${n++}` }),
    'POST /projects/{slug}/duplicate': () => send('POST', `/projects/${project}/duplicate`),
    'DELETE /projects/{slug}': () => send('DELETE', `/projects/${doomedProjects.shift() ?? 'pool-ran-out'}`),
    'POST /projects-labels': async () => {
      const made = await send('POST', '/projects-labels', { title: `Mix label ${n++}`, color: '1D76DB' });
      if (made.status === 201) doomedLabels.push(made.body.data.slug as string);
      return made;
    },
    'PUT /projects-labels/{slug}': () => send('PUT', `/projects-labels/${label}`, { color: (0x200000 + n++).toString(16).toUpperCase() }),
    'DELETE /projects-labels/{slug}': () => send('DELETE', `/projects-labels/${doomedLabels.shift() ?? 'pool-ran-out'}`),
  };
  const request = (row: string) => {
    if (write[row]) return write[row]();
    const s = sample(row);
    const query = new URLSearchParams(Object.entries(s.query ?? {}).filter(([k]) => k !== 'company_slug')).toString();
    return send(row.split(' ')[0]!, `${s.path}${query ? `?${query}` : ''}`);
  };
  const messages = MIX_MESSAGES.filter(([row]) => row.startsWith('inbound: '));
  const perRequest = messages.reduce((sum, [, x]) => sum + x, 0) / 100;
  const routeOf = scheduleOf(MIX_REQUESTS);
  const messageOf = scheduleOf(messages);
  const emit = async (i: number) => {
    const type = messageOf(i).replace('inbound: ', '');
    const subject = type.startsWith('Task')
      ? { task_uuid: `event-${i % 50}` }
      : type.startsWith('Member')
        ? { username: 'alice' }
        : { sprint_uuid: 's-1' };
    const detail = {
      event_id: `mix-${i}`,
      company_slug: 'acme-corp',
      project_slug: project,
      occurred_at: new Date().toISOString(),
      ...subject,
    };
    await fetch(`${stack.url}/__local/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Entries: [{ Source: 'tasks-service', DetailType: type, Detail: JSON.stringify(detail) }] }),
    });
  };

  const steps: MixSaturation['steps'] = [];
  let slot = 0;
  let logRead = refusalsSince(stack.logFile, 0).end;
  for (const factor of factors) {
    await keepOneSpare();
    const labels = baseLabels + doomedLabels.length;
    const offered = predicted * factor;
    log(`section 6: the mix at ${offered.toFixed(1)}/s (${factor}x the predicted ${predicted.toFixed(1)}/s)`);
    let emitted = 0;
    let eventsLost = 0;
    const answers = await openLoop(offered, stepSeconds, (i) => {
      const at = slot + i;
      while (emitted < (i + 1) * perRequest) void emit(slot + emitted++).catch(() => eventsLost++);
      return request(routeOf(at));
    });
    if (eventsLost) log(`section 6: ${eventsLost} of the step's inbound events were not taken by the local bus`);
    slot += answers.length;
    await stack.settle();
    const refusals = refusalsSince(stack.logFile, logRead);
    logRead = refusals.end;
    const refused = answers.filter((a) => a.status === 503).length;
    steps.push({
      factor,
      offered,
      answers: answers.length,
      refused,
      limited: answers.filter((a) => a.status === 429).length,
      ok: answers.filter((a) => a.status >= 200 && a.status < 300).length,
      served: answers.length / Math.max(stepSeconds, ...answers.map((a) => a.doneS)),
      ...(eventsLost ? { eventsLost } : {}),
      refusedOn: refusals.partitions,
      labels: [labels, baseLabels + doomedLabels.length],
    });
    if (refused) log(`section 6: refused on ${refusals.partitions.map(([k, n]) => `${k}: ${n}`).join(', ')}`);
  }
  // The knee: between the step before the first that refuses more than 1% and that step.
  const first = steps.findIndex((s) => s.refused > REFUSED_AT_MOST * s.answers);
  const measured =
    first === -1
      ? steps[steps.length - 1]!.offered
      : first === 0
        ? steps[0]!.offered
        : (steps[first - 1]!.offered + steps[first]!.offered) / 2;
  return { modelled: rate, predicted, firstKey: key, steps, measured, modelLabels: WORKLOAD.labels };
}
