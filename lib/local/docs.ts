import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ASYNCAPI_FILE } from '#lib/asyncapi/document';
import { OPENAPI_FILE } from '#lib/openapi/document';
import { LOCAL_SERVER_URL } from '#lib/openapi/servers';
import { repoRoot } from '#lib/paths';

/**
 * What `npm start` serves beside the API, for people and tools: the OpenAPI document at
 * /openapi.json and the AsyncAPI document of the events at /asyncapi.json (the committed files, read
 * on every request), and a reference page at /docs (Swagger UI, from the swagger-ui-dist package).
 * The OpenAPI document names this server, at the address it was asked at, in place of its templated
 * `npm start` server, so that Swagger UI's "Try it out" calls it whatever its HOST and PORT.
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

/** `http://<host>` for a Host header that is a host name or address and a port, nothing else. */
function originOf(host: string | undefined): string | undefined {
  if (!host || !/^([\w.-]+|\[[\d:a-f.]+\])(:\d{1,5})?$/i.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).origin;
  } catch {
    return undefined; // a port over 65535, an address that is none
  }
}

/** The OpenAPI document with the server it is served from, at `origin`, in place of the templated npm start one. */
function withOwnServer(text: string, origin: string | undefined): string {
  if (!origin) return text;
  const doc = JSON.parse(text) as { servers?: { url: string }[] };
  doc.servers = doc.servers?.map((s) =>
    s.url === LOCAL_SERVER_URL ? { url: origin, description: 'This npm start: the server this document is served from' } : s,
  );
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The answer to a GET of a document, the page or one of its assets (`host`: the request's Host header); undefined for any other path. */
export function docsAnswer(pathname: string, host?: string): APIGatewayProxyResult | undefined {
  const document = Object.hasOwn(DOCUMENTS, pathname) ? DOCUMENTS[pathname] : undefined;
  if (document) {
    const text = readFileSync(join(repoRoot, document), 'utf8');
    return answer('application/json', document === OPENAPI_FILE ? withOwnServer(text, originOf(host)) : text);
  }
  if (pathname === '/docs' || pathname === '/docs/') return answer('text/html; charset=utf-8', PAGE);
  const asset = pathname.startsWith('/docs/') ? pathname.slice('/docs/'.length) : undefined;
  if (asset !== undefined && Object.hasOwn(ASSETS, asset)) return answer(ASSETS[asset]!, readFileSync(join(swaggerUi(), asset), 'utf8'));
  return undefined;
}
