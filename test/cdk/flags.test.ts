import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogLevel } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { expect, test } from 'vitest';
import { lambdaBundling } from '#cdk/bundling';
import { repoRoot } from '#lib/paths';

/**
 * `npm run synth` says what a user needs and no more: every feature flag of the installed aws-cdk-lib
 * is set in cdk.json (as `cdk init` sets them for a new app; otherwise the CLI warns of each one it
 * does not find), and bundling prints errors only. The template tests synthesize with the same context.
 */
const context = (JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

test('cdk.json sets every flag the installed aws-cdk-lib recommends, at its recommended value', () => {
  const unset = Object.keys(cxapi.CURRENTLY_RECOMMENDED_FLAGS).filter((flag) => !(flag in context));
  expect(unset).toEqual([]);
  for (const [flag, value] of Object.entries(cxapi.CURRENTLY_RECOMMENDED_FLAGS)) expect(context[flag], flag).toEqual(value);
});

test('bundling logs errors only', () => {
  expect(lambdaBundling().logLevel).toBe(LogLevel.ERROR);
});
