import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { outboundMismatches } from './asyncapi.ts';
import { localStack, stackPerFile, useOwnStack } from './stack.ts';

import { useLocalDatabase } from '#local/database';

// Recording what each file executes (test/support/coverage-record.ts): a local API of the file's own,
// started for it (its worker's has run other files' requests: what they loaded would count as this one's).
if (stackPerFile()) {
  const { startStack } = await import('./global-setup.ts');
  const { stack, api, dir } = await startStack(inject('dynamodbPort'), `rec${randomBytes(6).toString('hex')}`);
  useOwnStack(stack);
  // Registered first, so it runs last: after the check of what the file published.
  afterAll(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });
}

// This test file's database in the run's DynamoDB Local, new and empty: its worker's local API moves to it
// (lib/local/databaseSwitch.ts), and the shared DocumentClient of this worker and whatever the tests start
// (CLIs, stacks of their own) use it. To run the HTTP suites against another local API (API_URL): that
// API's database (TEST_DYNAMODB_PORT), as it is.
if (!process.env.TEST_DYNAMODB_PORT) {
  process.env.DYNAMODB_LOCAL_ACCESS_KEY = `worker${process.env.VITEST_POOL_ID ?? 1}file${randomBytes(6).toString('hex')}`;
  const res = await fetch(`${localStack().apiUrl}/__local/database`, {
    method: 'POST',
    body: JSON.stringify({ accessKey: process.env.DYNAMODB_LOCAL_ACCESS_KEY }),
  });
  if (res.status !== 204) throw new Error(`the local API did not move to this file's database: ${res.status} ${await res.text()}`);
}
useLocalDatabase(Number(process.env.TEST_DYNAMODB_PORT) || localStack().dynamodbPort);
process.env.TABLE_NAME = '';
// A worker runs its files one after another in one process: its DocumentClient, made by the first,
// sends each file's access key (it reads its credentials once).
(await import('#local/databaseSwitch')).followAccessKey();

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
