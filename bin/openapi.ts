/**
 * npm run openapi: writes openapi.json (OpenAPI 3.1) from the route table, the routes' input schemas
 * and the answer schemas (lib/openapi). Commit the result: a test fails while it is stale.
 */
import '#lib/sdkNotice';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';
import { buildOpenApi, OPENAPI_FILE } from '#lib/openapi/document';

writeFileSync(join(repoRoot, OPENAPI_FILE), `${JSON.stringify(await buildOpenApi(), null, 2)}\n`);
console.log(`${OPENAPI_FILE} written`);
