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
    // The reader pastes the line npm start printed where the page shows it (a page of tools alone needs none).
    const own = steps.map((s) => (/^export API=\S+ TOKEN=pls_\.\.\.$/.test(s.command.trim()) ? { ...s, command: pasted![0] } : s));
    const curls = steps.some((s) => /^\s*curl\b/.test(s.command));
    expect(own.filter((s) => s.command === pasted![0])).toHaveLength(curls ? 1 : 0);
    return await runSteps(own, { DATA_DIR: dataDir, LOG_ECHO: '0' }, async () => {
      await fetch(`${api.url}/__local/stream/caught-up`, { method: 'POST' });
    });
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Every way the page and what the reader gets differ, all at once (a page is fixed in one go). */
function expectAnswers(ran: Ran[]): void {
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

  // Each page says where it starts (a fresh npm start -- --in-memory) and makes what it uses: none leans on another's end state.
  test.each([
    ['docs/events.md', 'Events'],
    ['docs/local.md', 'The local stack'],
    ['docs/operations.md', 'Operations'],
  ])('every shell example of %s', async (file, heading) => {
    const steps = sectionSteps(file, heading);
    expect(steps.length).toBeGreaterThanOrEqual(5);
    expect(readFileSync(join(repoRoot, file), 'utf8')).toContain('`npm start -- --in-memory`');
    expectAnswers(await walk(steps));
  });
});
