/**
 * npm run asyncapi: writes asyncapi.json (AsyncAPI 3.1) from the event declarations (lib/asyncapi)
 * and renders it as docs/event-reference.md. Commit both: a test fails while either is stale.
 */
import '#lib/sdkNotice';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';
import { ASYNCAPI_FILE, buildAsyncApi } from '#lib/asyncapi/document';
import { EVENT_REFERENCE_FILE, renderEventReference } from '#lib/asyncapi/markdown';

const doc = buildAsyncApi();
writeFileSync(join(repoRoot, ASYNCAPI_FILE), `${JSON.stringify(doc, null, 2)}\n`);
writeFileSync(join(repoRoot, EVENT_REFERENCE_FILE), renderEventReference(doc));
console.log(`${ASYNCAPI_FILE} and ${EVENT_REFERENCE_FILE} written`);
