/**
 * npm run openapi: writes openapi.json (OpenAPI 3.1) from the route table, the routes' input schemas
 * and the answer schemas (lib/openapi). Commit the result: a test fails while it is stale.
 */
import '#lib/sdkNotice';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliArguments } from '#lib/cli';
import { repoRoot } from '#lib/paths';

await cliArguments({ usage: 'usage: npm run openapi   (writes openapi.json again from the route table and its schemas)' });
// Loaded only now: --help and a mistake load nothing of the document.
const { buildOpenApi, OPENAPI_FILE } = await import('#lib/openapi/document');
writeFileSync(join(repoRoot, OPENAPI_FILE), `${JSON.stringify(await buildOpenApi(), null, 2)}\n`);
console.log(`${OPENAPI_FILE} written`);
