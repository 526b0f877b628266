import type { Response } from '#support/api';

/** What the saturation probes (section 6) share: the stack they run against, and the load they offer it. */

/** The stack the probes run against, its workspace made like the model's, and how to talk to it. */
export interface SaturationStack {
  url: string;
  project: string;
  label: string;
  send: (method: string, path: string, body?: unknown) => Promise<Response>;
  patiently: (method: string, path: string, body?: unknown) => Promise<Response>;
  /** The stack's log file (what its 503s were refused on). */
  logFile: string;
  /** Once the stream has handled everything, and the partitions have refilled. */
  settle: () => Promise<void>;
}

/** Requests at a steady `rate` per second for `seconds`, none waiting for another; each answer with its completion time. */
export async function openLoop(rate: number, seconds: number, send: (i: number) => Promise<Response>) {
  const started = performance.now();
  const pending: Promise<{ status: number; doneS: number }>[] = [];
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(send(i).then((res) => ({ status: res.status, doneS: (performance.now() - started) / 1000 })));
  }
  return Promise.all(pending);
}
