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
const { createToken, listTokens, MAX_TOKEN_LIFETIME_MS, revokeToken } = await import('#domain/tokens');
const { ValidationFailed } = await import('#domain/errors');
const { SCOPES, isScope } = await import('#domain/scopes');

const usage = `usage:
  npm run token -- create --workspace <slug>[,<slug>...] --name <name> --username <username> [--scopes ${SCOPES.join(',')}] [--expires-in 30d|12h|90m]
  npm run token -- list --workspace <slug>
  npm run token -- revoke <id>`;

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

/** `30d`, `12h` or `90m`: a positive whole number of days, hours or minutes, at most ten years. */
function parseDuration(text: string): number {
  const m = /^(\d{1,7})([dhm])$/.exec(text);
  if (!m) fail(`--expires-in must look like 30d, 12h or 90m, not "${text}"`);
  const ms = Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
  if (ms <= 0) fail(`--expires-in must be more than zero, not "${text}" (leave it out for a token that does not expire)`);
  if (ms > MAX_TOKEN_LIFETIME_MS) fail(`--expires-in must be at most 3650d, not "${text}"`);
  return ms;
}

/** A comma-separated list: every entry trimmed and present (`a,,b` and `""` are mistakes, not lists). */
function list(option: string, text: string): string[] {
  const entries = text.split(',').map((e) => e.trim());
  if (entries.some((e) => e === '')) fail(`--${option} has an empty entry: "${text}"`);
  return entries;
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      username: { type: 'string' },
      scopes: { type: 'string' },
      'expires-in': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
}
try {
  parsed = parse();
} catch (error) {
  fail((error as Error).message);
}
const { positionals, values } = parsed;
const [command, arg] = positionals;

switch (command) {
  case 'create': {
    if (values.workspace === undefined || values.name === undefined || values.username === undefined)
      fail('create needs --workspace, --name and --username');
    // Given but empty is a mistake (an unset variable), never "all scopes".
    const scopes = values.scopes === undefined ? [...SCOPES] : list('scopes', values.scopes);
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) fail(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
    const expiresIn = values['expires-in'] === undefined ? undefined : parseDuration(values['expires-in']);
    let created;
    try {
      created = await createToken({
        workspaces: list('workspace', values.workspace),
        owner: { name: values.name, username: values.username },
        scopes: scopes.filter(isScope),
        ...(expiresIn ? { expiresAt: new Date(Date.now() + expiresIn) } : {}),
      });
    } catch (error) {
      if (error instanceof ValidationFailed)
        fail(error.errors.map((e) => `--${e.field === 'workspaces' ? 'workspace' : e.field}: ${e.message}`).join('\n'));
      throw error;
    }
    const { token, record } = created;
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
