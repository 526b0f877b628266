import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { everyToolHonoursItsArguments, expectUsageError } from '#support/cliArguments';
import { npmTools, runTool } from '#support/tools';

// The second half of the tools (test/support/cliArguments.ts), then the parser's other mistakes.
everyToolHonoursItsArguments(2);

const tools = npmTools();
describe('the other mistakes of the parser come first too', () => {
  const tool = (script: string) => tools.find((t) => t.script === script)!.file;
  const env = { DATA_DIR: join(tmpdir(), 'pls-cli-args-none') };

  test.each([
    ['token', ['list', '--workspace'], /^--workspace needs a value: give it as --workspace <value>\.$/],
    ['token', ['revoke'], /^revoke needs a token id$/],
    ['token', [], /^Missing argument: this command takes a command \(create, list, limits, revoke, sync-keys or sweep-keys\)/],
    ['openapi', ['now'], /^Unexpected argument "now": this command takes no arguments\.$/],
    ['emit', ['Task Created'], /^Missing argument: this command takes a detail-type and a detail \(a JSON object\)\.$/],
    ['events:follow', ['--all=yes'], /^--all takes no value: give it alone\.$/],
    ['webhooks:listen', ['--secret'], /^--secret needs a value/],
  ])('%s %j', async (script, args, sentence) => {
    expectUsageError(await runTool(tool(script), args as string[], env), sentence);
  });
});
