import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { outboundMismatches } from './asyncapi.ts';
import { localStack } from './stack.ts';

import { useLocalDatabase } from '#local/database';

// Point the shared DocumentClient of this test worker at the run's DynamoDB Local, or, to run the
// HTTP suites against another local API (API_URL), at that API's database (TEST_DYNAMODB_PORT).
useLocalDatabase(Number(process.env.TEST_DYNAMODB_PORT) || localStack().dynamodbPort);
process.env.TABLE_NAME = '';

// Every event this file's requests put on the worker's local bus is described by asyncapi.json: once
// the stream has drained (so the file's own events are there), every whole line written since the
// file began. Against another API (API_URL) the check runs only when EVENTS_FILE names its bus file.
const busFile = process.env.API_URL ? process.env.EVENTS_FILE : localStack().eventsFile;
const busText = () => (busFile && existsSync(busFile) ? readFileSync(busFile) : Buffer.alloc(0));
let busFrom = 0;
beforeAll(() => {
  busFrom = busText().lastIndexOf('\n') + 1;
});
afterAll(async () => {
  if (!busFile) return;
  // Imported here: settle.ts loads the store, whose client must see the database above first.
  const { streamDrained } = await import('./settle.ts');
  await streamDrained().catch(() => false); // a file that stopped its API leaves what was published
  const text = busText();
  const from = text.length >= busFrom ? busFrom : 0;
  const lines = text
    .subarray(from, text.lastIndexOf('\n') + 1)
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  expect(outboundMismatches(lines.map((l) => JSON.parse(l)))).toEqual([]);
});
