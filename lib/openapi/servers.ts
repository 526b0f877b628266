import type { StageName } from '#cdk/stage';
import { REGION_VARIABLE } from '#lib/documentInfo';

/**
 * The OpenAPI document's servers: the bases a client joins a path (`/projects`) to, none ending in a
 * slash. `npm start` answers at its root; a deployed stage under its stage's name (or a custom domain's
 * base path).
 */

interface Server {
  url: string;
  description: string;
  variables: Record<string, { default: string; description?: string; enum?: string[] }>;
}

/** `npm start`'s address (HOST and PORT, bin/start.ts): lib/local/docs.ts serves the document with the address it was asked at in its place. */
export const LOCAL_SERVER_URL = 'http://{host}:{port}';

export const SERVERS: Server[] = [
  {
    url: LOCAL_SERVER_URL,
    description: 'npm start (HOST and PORT)',
    variables: { host: { default: '127.0.0.1' }, port: { default: '3000' } },
  },
  {
    url: 'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
    description: "A deployed stage: the stack's ApiUrl output without its final slash",
    variables: {
      restApiId: { default: 'abc123', description: "The stack's RestApiId output" },
      region: REGION_VARIABLE,
      stage: { default: 'dev', enum: Object.keys({ dev: true, prod: true } satisfies Record<StageName, true>) },
    },
  },
];
