import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { buildApp } from '#cdk/app';

/**
 * `-c corsOrigins` is the one value a deployer gives that a function reads (CORS_ORIGINS): checked when
 * the stack is synthesized, with the local stack's rule, so a wrong origin fails the synth in one
 * sentence instead of every browser request after the deploy.
 */
// An app given no folder makes one in the temp folder at once, synthesized or not: these go in one removed after.
const outdir = mkdtempSync(join(tmpdir(), 'pls-cors-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('-c corsOrigins', () => {
  test.each([
    ['app.example.com', '"app.example.com" is not an origin'],
    ['https://app.example.com/', '"https://app.example.com/" is not an origin'],
    ['https://a.example.com,,https://b.example.com', 'an empty entry'],
    ['*,https://a.example.com', '"*" is not an origin'],
  ])('%j is refused before anything is built, naming the origin', (value, why) => {
    expect(() => buildApp({ outdir, context: { corsOrigins: value }, nag: false })).toThrow(
      `-c corsOrigins=${JSON.stringify(value)} (${why}): use * or a comma-separated list of origins as a browser sends them (scheme, host and port only, e.g. https://app.example.com).`,
    );
  });

  test('origins as a browser sends them are taken, spaces after the commas allowed', () => {
    const context = { corsOrigins: 'https://app.example.com, http://localhost:5173', 'aws:cdk:bundling-stacks': [] };
    const { stack } = buildApp({ outdir, context, nag: false });
    const origins = stack.node
      .findAll()
      .filter((c): c is CfnFunction => c instanceof CfnFunction)
      .map((fn) => Stack.of(fn).resolve(fn.environment)?.variables?.CORS_ORIGINS)
      .filter(Boolean);
    expect(new Set(origins)).toEqual(new Set(['https://app.example.com,http://localhost:5173']));
  });
});
