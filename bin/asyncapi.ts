/**
 * npm run asyncapi: writes asyncapi.json (AsyncAPI 3.1) from the event declarations (lib/asyncapi)
 * and renders it as docs/event-reference.md. Commit both: a test fails while either is stale.
 */
import '#lib/sdkNotice';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliArguments } from '#lib/cli';
import { repoRoot } from '#lib/paths';

await cliArguments({
  usage: 'usage: npm run asyncapi   (writes asyncapi.json and docs/event-reference.md again from the event declarations)',
});
// Loaded only now: --help and a mistake load nothing of the document.
const { ASYNCAPI_FILE, buildAsyncApi } = await import('#lib/asyncapi/document');
const { EVENT_REFERENCE_FILE, renderEventReference } = await import('#lib/asyncapi/markdown');
const doc = buildAsyncApi();
writeFileSync(join(repoRoot, ASYNCAPI_FILE), `${JSON.stringify(doc, null, 2)}\n`);
writeFileSync(join(repoRoot, EVENT_REFERENCE_FILE), renderEventReference(doc));
console.log(`${ASYNCAPI_FILE} and ${EVENT_REFERENCE_FILE} written`);
