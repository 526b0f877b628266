/**
 * npm run webhooks:listen -- --secret whsec_... [--port 4000]: a small webhook receiver for trying
 * webhooks out. It verifies each delivery's Standard Webhooks signature with the secret given (the
 * `standardwebhooks` library, as any receiver would), prints the event and answers 204, or prints why
 * it refused and answers 401. Register it with a local stack started with
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS=true: url http://127.0.0.1:<port>/.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { cliArguments, cliError, usageError } from '#lib/cli';

const USAGE = `usage: npm run webhooks:listen -- --secret <whsec_...> [--port <port>]
  --secret   the webhook's secret (from POST /webhooks or rotate-secret); or set WEBHOOK_SECRET
  --port     where to listen on 127.0.0.1 (default 4000; 0 picks a free port)
Prints each verified delivery: its time, type, webhook-id and data; refuses a bad signature with 401.`;
const { values } = await cliArguments({ usage: USAGE, options: { secret: 'string', port: 'string' } });

const secret = values.secret ?? process.env.WEBHOOK_SECRET;
if (!secret) usageError("Give the webhook's secret: --secret whsec_... (or WEBHOOK_SECRET).", USAGE);
const port = Number(values.port ?? 4000);
if (!/^\d{1,5}$/.test(values.port ?? '4000') || port > 65535) cliError(`--port must be a port number (0-65535), not ${values.port}.`);
let verifier: Webhook;
try {
  verifier = new Webhook(secret);
} catch {
  cliError('The secret is not a Standard Webhooks secret (whsec_ followed by base64).');
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    try {
      const event = verifier.verify(body, req.headers as Record<string, string>) as { type: string; timestamp: string; data: unknown };
      console.log(`${event.timestamp}  ${event.type.padEnd(18)} ${String(req.headers['webhook-id'])}  ${JSON.stringify(event.data)}`);
      res.writeHead(204).end();
    } catch (error) {
      console.log(`refused ${req.method} ${req.url}: ${(error as Error).message} (answered 401)`);
      res.writeHead(401, { 'content-type': 'text/plain' }).end('signature not verified');
    }
  });
});
server.once('error', (error: NodeJS.ErrnoException) =>
  cliError(`Cannot listen on 127.0.0.1:${port} (${error.code ?? error.message}): choose another --port.`),
);
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  console.log(`Listening for webhook deliveries on http://127.0.0.1:${actual}/ (Ctrl-C to stop)`);
});
