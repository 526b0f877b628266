import { describe, expect, test } from 'vitest';
import { SCOPES } from '#domain/scopes';
import { closestNames, didYouMean, editDistance } from '#lib/didYouMean';
import { npmTookSentence, optionsNpmTook } from '#lib/npmArguments';
import { ArgumentMistake, tokenArguments } from '#lib/tokenArguments';

/** The command-line tools' answers to a typo and to options npm kept (lib/didYouMean.ts, lib/npmArguments.ts). */
describe('did you mean', () => {
  test('edits: insertions, deletions, replacements and a swap of neighbours count one each', () => {
    expect(editDistance('get-projects', 'get-project')).toBe(1);
    expect(editDistance('crate', 'create')).toBe(1);
    expect(editDistance('lsit', 'list')).toBe(1);
    expect(editDistance('', 'list')).toBe(4);
  });

  test('the nearest names, when near enough to be a typo; case is ignored', () => {
    const functions = ['list-projects', 'get-project', 'get-label', 'delete-project', 'authorizer'];
    expect(closestNames('get-projects', functions)).toEqual(['get-project']);
    expect(closestNames('Authoriser', functions)).toEqual(['authorizer']);
    expect(closestNames('bogus', ['quick', 'skip-100k', 'report-only', 'all', 'json', 'burst'])).toEqual([]);
    expect(closestNames('x', ['all', 'json'])).toEqual([]);
    expect(didYouMean('rte', ['rate', 'rite'], (n) => `--${n}`)).toBe('did you mean --rate or --rite?');
    expect(didYouMean('frobnicate', functions)).toBeUndefined();
  });

  test('a mistyped scope is named with the one meant', () => {
    const given = { workspace: 'acme-corp', name: 'Ada', username: 'ada', scopes: 'projects:reed', 'no-expiry': true };
    expect(() => tokenArguments('create', given)).toThrow(
      new ArgumentMistake('unknown scopes: projects:reed (did you mean projects:read?)'),
    );
    expect(() => tokenArguments('create', { ...given, scopes: 'admin' })).toThrow(`(known: ${SCOPES.join(', ')})`);
  });
});

describe('options npm kept for itself (given before `--`)', () => {
  const options = { workspace: 'string', name: 'string', 'all-scopes': 'boolean', 'no-expiry': 'boolean', json: 'boolean' } as const;
  // What npm 11 puts in the script's environment for `npm run token create --name Ada --all-scopes --no-expiry`.
  const env = {
    npm_lifecycle_event: 'token',
    npm_lifecycle_script: 'node --import tsx bin/token.ts',
    npm_config_name: 'Ada',
    npm_config_all_scopes: 'true',
    npm_config_expiry: '',
  };

  test('are found when npm ran this very tool, under tsx or built', () => {
    expect(optionsNpmTook(options, env, '/repo/bin/token.ts')).toEqual(['--name', '--all-scopes', '--no-expiry']);
    expect(optionsNpmTook(options, env, '/repo/node_modules/.cache/test-tools/1-a/token.mjs')).toEqual([
      '--name',
      '--all-scopes',
      '--no-expiry',
    ]);
  });

  test('are not looked for when npm ran another script (a tool started by npm test) or none', () => {
    expect(optionsNpmTook(options, { ...env, npm_lifecycle_script: 'npm run check && vitest run' }, '/repo/bin/token.ts')).toEqual([]);
    expect(optionsNpmTook(options, { npm_config_name: 'Ada' }, '/repo/bin/token.ts')).toEqual([]);
  });

  test('are said with the command as it should be typed', () => {
    expect(npmTookSentence(['--workspace'], options, 'list', 'token')).toBe(
      "npm took --workspace for itself: put `--` before the tool's arguments: npm run token -- list --workspace ...",
    );
    expect(npmTookSentence(['--name', '--all-scopes'], options, undefined, 'token')).toBe(
      "npm took --name and --all-scopes for itself: put `--` before the tool's arguments: npm run token -- --name ... --all-scopes",
    );
  });
});
