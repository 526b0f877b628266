import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '#cdk/app';
import type { ServiceStack } from '#cdk/service-stack';

export interface Synthesized {
  stack: ServiceStack;
  template: Template;
  templateFile: string;
  cleanup(): void;
}

/**
 * Synthesizes the app into a temporary cloud assembly, once per test file (beforeAll).
 * `bundle: false` skips esbuild (CDK's `aws:cdk:bundling-stacks` context): the template is the same
 * apart from asset hashes, which is all cfn-lint and cdk-nag look at.
 */
export function synthesize(
  opts: { stage?: 'dev' | 'prod'; bundle?: boolean; nag?: boolean; context?: Record<string, unknown> } = {},
): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'pls-cdk-'));
  const { app, stack } = buildApp({
    outdir,
    nag: opts.nag ?? true,
    context: { stage: opts.stage ?? 'dev', ...(opts.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}), ...opts.context },
  });
  const artifact = app.synth().getStackByName(stack.stackName);
  return {
    stack,
    template: Template.fromJSON(artifact.template as Record<string, unknown>),
    templateFile: artifact.templateFullPath,
    cleanup: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
