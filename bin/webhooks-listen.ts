/**
 * WEBHOOK_SECRET=whsec_... npm run webhooks:listen [-- --port 4000]: a small webhook receiver for trying
 * webhooks out. It verifies each delivery's Standard Webhooks signature with the secret given (the
 * `standardwebhooks` library, as any receiver would), prints the event and answers 204, or prints why
 * it refused and answers 401; after a few deliveries in a row that no signature of verifies, it says the
 * secret may not be the webhook's. Register it with a local stack started with
 * WEBHOOKS_ALLOW_PRIVATE_TARGETS=true: url http://127.0.0.1:<port>/. The secret is read from the
 * environment first: `--secret` works too, but npm prints a script's arguments as it starts it.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { cliArguments, cliError, usageError } from '#lib/cli';

const USAGE = `usage: npm run webhooks:listen [-- --port <port>], with WEBHOOK_SECRET=<whsec_...> in the environment
  WEBHOOK_SECRET  the webhook's secret (from POST /webhooks or rotate-secret)
  --secret        the same as an argument (npm prints it as it starts the script: prefer WEBHOOK_SECRET)
  --port          where to listen on 127.0.0.1 (default 4000; 0 picks a free port)
Prints each verified delivery: its time, type, webhook-id and data; refuses a bad signature with 401.`;
const { values } = await cliArguments({ usage: USAGE, options: { secret: 'string', port: 'string' } });

const secret = process.env.WEBHOOK_SECRET || values.secret;
if (!secret) usageError("Give the webhook's secret: WEBHOOK_SECRET=whsec_... npm run webhooks:listen.", USAGE);
if (!process.env.WEBHOOK_SECRET)
  console.error('The secret was given as an argument, which npm printed above: WEBHOOK_SECRET=whsec_... keeps it off the screen.');
const port = Number(values.port ?? 4000);
if (!/^\d{1,5}$/.test(values.port ?? '4000') || port > 65535) cliError(`--port must be a port number (0-65535), not ${values.port}.`);
let verifier: Webhook;
try {
  verifier = new Webhook(secret);
} catch {
  cliError('The secret is not a Standard Webhooks secret (whsec_ followed by base64).');
}

/** Deliveries in a row that no signature of verified with this secret: a few, and the secret is likely not the webhook's. */
const MISMATCHES_BEFORE_HINT = 3;
let mismatches = 0;

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    try {
      const event = verifier.verify(body, req.headers as Record<string, string>) as { type: string; timestamp: string; data: unknown };
      console.log(`${event.timestamp}  ${event.type.padEnd(18)} ${String(req.headers['webhook-id'])}  ${JSON.stringify(event.data)}`);
      mismatches = 0;
      res.writeHead(204).end();
    } catch (error) {
      console.log(`refused ${req.method} ${req.url}: ${(error as Error).message} (answered 401)`);
      if (/no matching signature/i.test((error as Error).message) && ++mismatches === MISMATCHES_BEFORE_HINT)
        console.log(
          `${MISMATCHES_BEFORE_HINT} deliveries in a row did not verify with this secret: it may not be this webhook's, or it was rotated (use the secret rotate-secret answered; a previous one signs for a day only). Restart with the right WEBHOOK_SECRET.`,
        );
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
