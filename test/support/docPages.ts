import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { repoRoot } from '#lib/paths';
import { inOrder, type Ran, runSteps, scriptsNamed, type Step } from './docExamples.ts';
import { startLocalApi } from './local-api.ts';
import { localStack } from './stack.ts';
import { packageScripts } from './tools.ts';

/**
 * A page of the documentation's examples, run as a reader runs them: against a fresh `npm start -- --in-memory`
 * (its first start, which prints the token and the line the walkthrough starts from), in order, in one
 * shell. The stack has a database of its own in the test run's DynamoDB Local and is started built,
 * as the tests start the tools (test/support/toolBuilds.ts): what a reader sees of it is the same as
 * with a JVM of its own under tsx, and it starts in about a second.
 */
export async function walkPage(steps: Step[]): Promise<Ran[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pls-docs-'));
  const api = await startLocalApi({ args: ['--in-memory'], sharing: localStack().dynamodbPort, env: { DATA_DIR: dataDir } });
  try {
    const pasted = /export API=\S+ TOKEN=pls_\S+/.exec(api.output());
    expect(pasted, 'npm start prints the line the walkthrough starts from').not.toBeNull();
    // The reader pastes the line npm start printed where the page shows it (a page of tools alone needs none).
    const own = steps.map((s) => (/^export API=\S+ TOKEN=pls_\.\.\.$/.test(s.command.trim()) ? { ...s, command: pasted![0] } : s));
    const curls = steps.some((s) => /^\s*curl\b/.test(s.command));
    expect(own.filter((s) => s.command === pasted![0])).toHaveLength(curls ? 1 : 0);
    return await runSteps(own, { DATA_DIR: dataDir, LOG_ECHO: '0', ...api.cliEnv }, async () => {
      await fetch(`${api.url}/__local/stream/caught-up`, { method: 'POST' });
    });
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const scripts = Object.keys(packageScripts());

/** Every way the page and what the reader gets differ, all at once (a page is fixed in one go). */
export function expectAnswers(ran: Ran[]): void {
  const differences: string[] = [];
  const differs = (step: Ran['step'], what: string, output: string) => differences.push(`${step.at}: ${what}\n  got: ${output}`);
  for (const { step, got, output } of ran) {
    for (const script of scriptsNamed(step.command)) if (!scripts.includes(script)) differs(step, `no script npm run ${script}`, '');
    if (!step.background && got !== step.expect) differs(step, `${step.command}\n  answers ${step.expect}, not ${got}`, output);
    // Shown without a `…` at its start or end: the answer starts or ends there, nothing left out unsaid.
    if (step.whole?.start && !output.startsWith(step.pieces[0]!)) differs(step, `the answer starts ${step.pieces[0]}`, output);
    if (step.whole?.end && !output.endsWith(step.pieces.at(-1)!)) differs(step, `the answer ends ${step.pieces.at(-1)} (or add …)`, output);
    if (!inOrder(output, step.pieces)) differs(step, `${step.command}\n  expected, in order: ${step.pieces.join(' … ')}`, output);
  }
  expect(differences.join('\n')).toBe('');
}

/** Each page after the README says where it starts (a fresh npm start -- --in-memory) and makes what it uses. */
export function expectPageStandsAlone(file: string, steps: Step[]): void {
  expect(steps.length).toBeGreaterThanOrEqual(5);
  expect(readFileSync(join(repoRoot, file), 'utf8')).toContain('`npm start -- --in-memory`');
}
