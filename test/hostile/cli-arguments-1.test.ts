import { expect, test } from 'vitest';
import { everyToolHonoursItsArguments } from '#support/cliArguments';
import { npmTools } from '#support/tools';

// The first half of the tools (test/support/cliArguments.ts); the other half in cli-arguments-2, with the parser's other mistakes.
everyToolHonoursItsArguments(1);

test('the tools are every script that runs bin/', () => {
  const tools = npmTools();
  expect(tools.map((t) => t.script)).toEqual(expect.arrayContaining(['start', 'token', 'emit', 'invoke', 'openapi', 'asyncapi', 'bench']));
  expect(tools.length).toBeGreaterThanOrEqual(15);
});
