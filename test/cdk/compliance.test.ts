import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import cdkNag from 'cdk-nag';
import { beforeAll, expect, test } from 'vitest';
import { synthesize, type Synthesized } from './synth.ts';

const run = promisify(execFile);

/**
 * cfn-lint rules ignored, each for a reason we cannot fix in the stack:
 *   W3005  CDK adds an explicit DependsOn from each function to its role (and role policy) so the
 *          policy exists before the first invoke; cfn-lint calls the role half redundant with the GetAtt.
 */
const CFN_LINT_IGNORED = ['W3005'];

/** cfn-lint over the stages' templates (each root and its rooms), each written as `cdk synth` writes it (in a folder removed after). */
async function cfnLint(synthesized: Synthesized[]): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pls-cfn-lint-'));
  const templates = synthesized.flatMap((s) => s.templates);
  const templateFiles = templates.map((t) => join(dir, `${t.name.replace(/[^A-Za-z0-9-]/g, '_')}.template.json`));
  templates.forEach((t, i) => writeFileSync(templateFiles[i]!, t.text));
  try {
    const { stdout, stderr } = await run('cfn-lint', ['--ignore-checks', ...CFN_LINT_IGNORED, '--', ...templateFiles]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const stages = {} as Record<'dev' | 'prod', Synthesized>;
let linted: Promise<{ code: number; output: string }>;
beforeAll(() => {
  // Without bundling (same template but for asset hashes) and without cdk-nag failing the synth,
  // so the checks below can report every finding.
  stages.dev = synthesize({ stage: 'dev', bundle: false, nag: false });
  stages.prod = synthesize({ stage: 'prod', bundle: false, nag: false });
  // cfn-lint runs beside the cdk-nag tests (its own process); its test reads the result.
  linted = cfnLint([stages.dev, stages.prod]);
});

test.each(['dev', 'prod'] as const)('cdk-nag AwsSolutions reports nothing unacknowledged in %s', (stage) => {
  const report = new cdkNag.AwsSolutionsChecks().validateScope(stages[stage].stack);
  const findings = report.violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.ruleName} ${r.constructPath ?? r.resourceLogicalId}`),
  );
  expect(findings).toEqual([]);
  expect(report.success).toBe(true);
});

test('every cdk-nag acknowledgment carries a written reason', () => {
  const acknowledgments = stages.dev.stack.node
    .findAll()
    .flatMap((c) => c.node.metadata.filter((m) => m.type === 'aws:cdk:acknowledged-rules'))
    .flatMap((m) => Object.entries(m.data as Record<string, string>));
  expect(acknowledgments.length).toBeGreaterThan(0);
  for (const [id, reason] of acknowledgments) expect(reason.length, id).toBeGreaterThan(40);
});

test('prod keeps its data: table deletion protection and retained (but on a rolled-back create), longer log retention', () => {
  stages.prod.template.hasResource('AWS::DynamoDB::Table', {
    Properties: { DeletionProtectionEnabled: true, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
    DeletionPolicy: 'RetainExceptOnCreate',
    UpdateReplacePolicy: 'Retain',
  });
  stages.prod.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
});

test("both stages' templates, the roots' and the rooms', pass cfn-lint", async () => {
  expect(stages.dev.templates.length).toBeGreaterThan(1);
  const { code, output } = await linted;
  expect(output).toBe('');
  expect(code).toBe(0);
});
