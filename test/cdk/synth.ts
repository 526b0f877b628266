import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '#cdk/app';
import type { Route } from '#http/routes';
import type { AccountSettingsStack } from '#cdk/account-stack';
import type { ServiceStack } from '#cdk/service-stack';
import { flatten } from './flatten.ts';

export interface Synthesized {
  stack: ServiceStack;
  /** The service's stacks as one template, references across them followed (flatten.ts): what the assertions read. */
  template: Template;
  /** The root template as `cdk synth` writes it for CloudFormation (no indentation). */
  templateText: string;
  /** Every template CloudFormation gets for the stage, the root's first, each as `cdk synth` writes it. */
  templates: { name: string; text: string; json: Record<string, any> }[];
  /** The stack of the account-wide setting, synthesized with it (the same for every stage). */
  account: { stack: AccountSettingsStack; template: Template; templateText: string };
}

type SynthOptions = {
  stage?: 'dev' | 'prod';
  bundle?: boolean;
  nag?: boolean;
  context?: Record<string, unknown>;
  /** Another route table than the service's (the headroom test's). */
  routes?: readonly Route[];
};

/** Synthesized apps by their options: the CDK files share a worker (the unit project does not isolate them). */
const synthesized = new Map<string, Synthesized>();

/**
 * The app synthesized into a temporary cloud assembly, once per worker for each set of options, and
 * the assembly removed once read: the tests only read the template (vitest ends its workers without
 * an exit event, so nothing left for the end of the process would be removed). `bundle: false` skips
 * esbuild (CDK's `aws:cdk:bundling-stacks` context): the template is the same apart from asset hashes,
 * which is all cfn-lint and cdk-nag look at.
 *
 * With `nag` (the default) the synthesis runs every check `cdk synth` runs: cdk-nag and CDK's own
 * CloudFormation validation (a WebAssembly validator: about 3 s to load in a process, 2-3 s a template).
 * `nag: false` gives a template for assertions alone and skips both (CDK_VALIDATION=false, its
 * documented switch): stack.test.ts synthesizes each stage's template with both, and nag changes nothing
 * in the template (stack.test.ts holds it to that).
 */
export function synthesize(opts: SynthOptions = {}): Synthesized {
  const key = JSON.stringify({ ...opts, routes: opts.routes?.map((r) => r.name) });
  let synth = synthesized.get(key);
  if (!synth) synthesized.set(key, (synth = synthesizeOnce(opts)));
  return synth;
}

function synthesizeOnce(opts: SynthOptions): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'pls-cdk-'));
  const nag = opts.nag ?? true;
  const { app, stack, accountStack } = buildApp({
    outdir,
    nag,
    ...(opts.routes ? { routes: opts.routes } : {}),
    context: {
      stage: opts.stage ?? 'dev',
      // What the CDK CLI adds (its defaults, cdk.json turning neither off), so the templates are the ones it writes.
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
      ...(opts.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}),
      ...opts.context,
    },
  });
  const validation = process.env.CDK_VALIDATION;
  if (!nag) process.env.CDK_VALIDATION = 'false';
  try {
    const assembly = app.synth();
    const read = (name: string) => {
      const artifact = assembly.getStackByName(name);
      return {
        template: Template.fromJSON(artifact.template as Record<string, unknown>),
        templateText: readFileSync(artifact.templateFullPath, 'utf8'),
      };
    };
    const root = read(stack.stackName);
    const rooms = stack.node
      .findAll()
      .filter((c): c is NestedStack => c instanceof NestedStack)
      .map((nested) => {
        const text = readFileSync(join(outdir, nested.templateFile), 'utf8');
        const logicalId = stack.resolve(nested.nestedStackResource!.logicalId) as string;
        return { name: nested.node.path, text, json: JSON.parse(text) as Record<string, any>, logicalId };
      });
    const rootJson = JSON.parse(root.templateText) as Record<string, any>;
    const whole = flatten(
      rootJson as never,
      rooms.map((r) => ({ logicalId: r.logicalId, template: r.json as never })),
    );
    return {
      stack,
      template: Template.fromJSON(whole),
      templateText: root.templateText,
      templates: [
        { name: stack.stackName, text: root.templateText, json: rootJson },
        ...rooms.map(({ name, text, json }) => ({ name, text, json })),
      ],
      account: { stack: accountStack, ...read(accountStack.stackName) },
    };
  } finally {
    if (validation === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = validation;
    rmSync(outdir, { recursive: true, force: true });
  }
}
