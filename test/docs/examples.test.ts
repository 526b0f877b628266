import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '#lib/paths';
import { inOrder, type Ran, runSteps, scriptsNamed, sectionSteps, type Step } from '#support/docExamples';
import { startLocalApi } from '#support/local-api';

/**
 * The documentation's examples, run as a reader runs them: against a fresh `npm start` (its first start,
 * which prints the token and the line the walkthrough starts from), in order, in one shell. Every answer
 * must have the status and the pieces of body the page shows; a renamed field, a changed status or a
 * reordered walkthrough fails here.
 */
const scripts = Object.keys((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: object }).scripts);

async function walk(steps: Step[]): Promise<Ran[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pls-docs-'));
  const api = await startLocalApi({ args: ['--in-memory'], env: { DATA_DIR: dataDir } });
  try {
    const pasted = /export API=\S+ TOKEN=pls_\S+/.exec(api.output());
    expect(pasted, 'npm start prints the line the walkthrough starts from').not.toBeNull();
    // The reader pastes the line npm start printed where the page shows it.
    const own = steps.map((s) => (/^export API=\S+ TOKEN=pls_\.\.\.$/.test(s.command.trim()) ? { ...s, command: pasted![0] } : s));
    expect(own.filter((s) => s.command === pasted![0])).toHaveLength(1);
    return await runSteps(own, { DATA_DIR: dataDir, LOG_ECHO: '0' }, async () => {
      await fetch(`${api.url}/__local/stream/caught-up`, { method: 'POST' });
    });
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function expectAnswers(ran: Ran[]): void {
  for (const { step, got, output } of ran) {
    for (const script of scriptsNamed(step.command)) expect(scripts, `${step.at}: npm run ${script}`).toContain(script);
    if (!step.background) expect(got, `${step.at}: ${step.command}\n${output}`).toBe(step.expect);
    expect(
      inOrder(output, step.pieces),
      `${step.at}: ${step.command}\nexpected, in order: ${step.pieces.join(' … ')}\ngot: ${output}`,
    ).toBe(true);
  }
}

describe('the documentation’s examples, pasted in order into a fresh npm start', () => {
  test('the README’s walkthrough', async () => {
    const steps = sectionSteps('README.md', 'Five minutes with the API');
    expect(steps.filter((s) => /^\s*curl\b/.test(s.command)).length).toBeGreaterThanOrEqual(12);
    expect(steps.some((s) => s.background)).toBe(true);
    expectAnswers(await walk(steps));
  });

  test('every endpoint of docs/api.md', async () => {
    const steps = sectionSteps('docs/api.md', 'Endpoints');
    expectAnswers(await walk(steps));
  });
});
