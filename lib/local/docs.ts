import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ASYNCAPI_FILE } from '#lib/asyncapi/document';
import { OPENAPI_FILE } from '#lib/openapi/document';
import { repoRoot } from '#lib/paths';

/**
 * What `npm start` serves beside the API, for people and tools: the OpenAPI document at
 * /openapi.json and the AsyncAPI document of the events at /asyncapi.json (the committed files, read
 * on every request), and a reference page at /docs (Swagger UI, from the swagger-ui-dist package).
 * The deployed API serves none of them.
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Project and Label Management Service: API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true });</script>
</body>
</html>
`;

let assetsDir: string | undefined;
const swaggerUi = () => (assetsDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));

const answer = (type: string, body: string): APIGatewayProxyResult => ({
  statusCode: 200,
  headers: { 'Content-Type': type, 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*', 'X-Content-Type-Options': 'nosniff' },
  body,
});

/** The committed documents, by the path each is served at. */
const DOCUMENTS: Record<string, string> = { '/openapi.json': OPENAPI_FILE, '/asyncapi.json': ASYNCAPI_FILE };

/** The answer to a GET of a document, the page or one of its assets; undefined for any other path. */
export function docsAnswer(pathname: string): APIGatewayProxyResult | undefined {
  const document = Object.hasOwn(DOCUMENTS, pathname) ? DOCUMENTS[pathname] : undefined;
  if (document) return answer('application/json', readFileSync(join(repoRoot, document), 'utf8'));
  if (pathname === '/docs' || pathname === '/docs/') return answer('text/html; charset=utf-8', PAGE);
  const asset = pathname.startsWith('/docs/') ? pathname.slice('/docs/'.length) : undefined;
  if (asset !== undefined && Object.hasOwn(ASSETS, asset)) return answer(ASSETS[asset]!, readFileSync(join(swaggerUi(), asset), 'utf8'));
  return undefined;
}
