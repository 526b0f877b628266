/**
 * npm run token -- create --workspace <slug> --name <name> --username <username> [--scopes a,b] [--expires-in 30d]
 * npm run token -- list --workspace <slug>
 * npm run token -- revoke <id>
 * Against the local database (DynamoDB Local on DYNAMODB_PORT, which `npm start` runs), or a deployed
 * table when TABLE_NAME and AWS credentials are set.
 */
import { parseArgs } from 'node:util';
import { isLocalDatabase, useLocalDatabase } from '#local/database';

if (isLocalDatabase()) useLocalDatabase();
const { createToken, listTokens, revokeToken } = await import('#domain/tokens');
const { SCOPES, isScope } = await import('#domain/scopes');

const usage = `usage:
  npm run token -- create --workspace <slug>[,<slug>...] --name <name> --username <username> [--scopes ${SCOPES.join(',')}] [--expires-in 30d|12h|90m]
  npm run token -- list --workspace <slug>
  npm run token -- revoke <id>`;

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

export function parseDuration(text: string): number {
  const m = /^(\d+)([dhm])$/.exec(text);
  if (!m) fail(`--expires-in must look like 30d, 12h or 90m, not "${text}"`);
  return Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    workspace: { type: 'string' },
    name: { type: 'string' },
    username: { type: 'string' },
    scopes: { type: 'string' },
    'expires-in': { type: 'string' },
    json: { type: 'boolean' },
  },
});
const [command, arg] = positionals;

switch (command) {
  case 'create': {
    if (!values.workspace || !values.name || !values.username) fail('create needs --workspace, --name and --username');
    const scopes = values.scopes ? values.scopes.split(',').map((s) => s.trim()) : [...SCOPES];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) fail(`unknown scopes: ${unknown.join(', ')}`);
    const expiresIn = values['expires-in'] ? parseDuration(values['expires-in']) : undefined;
    const { token, record } = await createToken({
      workspaces: values.workspace.split(',').map((w) => w.trim()),
      owner: { name: values.name, username: values.username },
      scopes: scopes.filter(isScope),
      ...(expiresIn ? { expiresAt: new Date(Date.now() + expiresIn) } : {}),
    });
    if (values.json) console.log(JSON.stringify({ token, ...record }));
    else {
      console.log(
        `Token ${record.id} for ${record.workspaces.join(', ')} (${record.scopes.join(' ')})${record.expires_at ? `, expires ${record.expires_at}` : ''}.`,
      );
      console.log('Shown once; only its hash is stored:\n');
      console.log(token);
    }
    break;
  }
  case 'list': {
    if (!values.workspace) fail('list needs --workspace');
    const tokens = await listTokens(values.workspace);
    if (values.json) console.log(JSON.stringify(tokens));
    else
      for (const t of tokens) {
        const state = t.revoked ? 'revoked' : t.expires_at && Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'active';
        console.log(
          `${t.id}  ${state.padEnd(7)}  ${t.owner.username.padEnd(16)}  ${t.scopes.join(' ')}  created ${t.created_at}${t.expires_at ? `  expires ${t.expires_at}` : ''}`,
        );
      }
    break;
  }
  case 'revoke': {
    if (!arg) fail('revoke needs a token id');
    if (!(await revokeToken(arg))) fail(`no token ${arg}`);
    console.log(`Token ${arg} revoked.`);
    break;
  }
  default:
    fail(command ? `unknown command ${command}` : 'no command');
}
