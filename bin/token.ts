/**
 * npm run token -- create --workspace <slug> --name <name> --username <username> (--scopes a,b | --all-scopes) (--expires-in 30d | --no-expiry) [--rate 100] [--burst 200]
 * npm run token -- list --workspace <slug>
 * npm run token -- limits <id> --rate <n> --burst <n>
 * npm run token -- revoke <id>
 * npm run token -- sync-keys
 * npm run token -- sweep-keys
 * Against the local database (DynamoDB Local on DYNAMODB_PORT, which `npm start` runs), or a deployed
 * table when TABLE_NAME and AWS credentials are set; then REST_API_ID and STAGE_NAME (stack outputs)
 * name the API whose API keys and usage plans hold each token's rate limit.
 */
import { cliArguments, exitPlainlyOnError, usageError } from '#lib/cli';
import { didYouMean } from '#lib/didYouMean';
import { isLocalDatabase } from '#local/database';
import { localTarget, useLocalStack } from '#local/stackDiscovery';

/** The command's usage, with the scopes and default limits it offers. */
function usageOf(scopes: readonly string[], limit: { rate: number; burst: number }): string {
  return `usage:
  npm run token -- create --workspace <slug>[,<slug>...] --name <name> --username <username> (--scopes ${scopes.join(',')} | --all-scopes) (--expires-in 30d|12h|90m | --no-expiry) [--rate ${limit.rate}] [--burst ${limit.burst}]
  npm run token -- list --workspace <slug>
  npm run token -- limits <id> --rate <requests per second> --burst <requests>
  npm run token -- revoke <id>
  npm run token -- sync-keys   (deployed: gives every active token its API key, and removes the others' keys)
  npm run token -- sweep-keys  (deployed: removes the API keys of expired and revoked tokens)
  The \`--\` is needed: npm keeps the options before it for itself (--workspace: "No workspaces found").`;
}

/** The commands, and whether each takes a token id. */
const COMMANDS = { create: false, list: false, limits: true, revoke: true, 'sync-keys': false, 'sweep-keys': false } as const;

const { positionals, values } = await cliArguments({
  // Built only when shown: the modules give it its scopes and limits, and nothing is read or written.
  usage: async () => usageOf((await import('#domain/scopes')).SCOPES, (await import('#domain/tokens')).DEFAULT_RATE_LIMIT),
  options: {
    workspace: 'string',
    name: 'string',
    username: 'string',
    scopes: 'string',
    'expires-in': 'string',
    rate: 'string',
    burst: 'string',
    json: 'boolean',
    'all-scopes': 'boolean',
    'no-expiry': 'boolean',
  },
  args: {
    min: 1,
    max: 2,
    what: 'a command (create, list, limits, revoke, sync-keys or sweep-keys) and, for limits and revoke, a token id',
  },
});
// An AWS error (no credentials, no such table) or a database gone mid-command: its message, no stack trace.
exitPlainlyOnError();
const local = isLocalDatabase();
// The database is named before the modules that reach it load; whether it answers is asked once the
// arguments are checked, so that a mistake is said before anything else.
const target = local ? localTarget() : undefined;
const {
  checkLimits,
  checkNewToken,
  createToken,
  DEFAULT_RATE_LIMIT,
  isActiveToken,
  isUsableToken,
  listTokens,
  usable,
  usableIn,
  revokeToken,
  setTokenLimits,
} = await import('#domain/tokens');
const { ValidationFailed } = await import('#domain/errors');
const { SCOPES } = await import('#domain/scopes');
const { ArgumentMistake, tokenArguments } = await import('#lib/tokenArguments');
const { addTokenKey, deployedApi, placeTokenKey, removeTokenKey, sweepTokenKeys } = await import('#lib/aws/usagePlans');

const usage = usageOf(SCOPES, DEFAULT_RATE_LIMIT);

function fail(message: string): never {
  usageError(message, usage);
}

function describeErrors(error: InstanceType<typeof ValidationFailed>): string {
  return error.errors.map((e) => `--${e.field === 'workspaces' ? 'workspace' : e.field}: ${e.message}`).join('\n');
}

/**
 * Deployed, every token needs its API key (the stage requires one); the API must be named before
 * anything is written. Locally the emulator reads the limits from the token itself.
 */
function api() {
  if (local) return undefined;
  const found = deployedApi();
  if (!found) fail('against a deployed table, set REST_API_ID and STAGE_NAME too (the stack outputs RestApiId and StageName)');
  return found;
}

// Every mistake in the arguments is said here, before the database is asked anything.
const [command, arg] = positionals as [string, string | undefined];
if (!Object.hasOwn(COMMANDS, command)) {
  const near = didYouMean(command, Object.keys(COMMANDS));
  fail(`unknown command ${command}${near ? `: ${near}` : ''}`);
}
if (COMMANDS[command as keyof typeof COMMANDS] && !arg) fail(`${command} needs a token id`);
if (!COMMANDS[command as keyof typeof COMMANDS] && arg) fail(`${command} takes no token id, not "${arg}"`);
if (command === 'create' && (values.workspace === undefined || values.name === undefined || values.username === undefined))
  fail('create needs --workspace, --name and --username');
if (command === 'list' && !values.workspace) fail('list needs --workspace');
const { scopes, workspaces, expiresIn, rate, burst } = (() => {
  try {
    return tokenArguments(command, values);
  } catch (error) {
    if (error instanceof ArgumentMistake) fail(error.message);
    throw error;
  }
})();
if (command === 'limits' && (rate === undefined || burst === undefined)) fail('limits needs --rate and --burst');
const limits = { rate: rate ?? DEFAULT_RATE_LIMIT.rate, burst: burst ?? DEFAULT_RATE_LIMIT.burst };
const newToken = {
  workspaces,
  owner: { name: values.name ?? '', username: values.username ?? '' },
  scopes,
  limits,
  ...(expiresIn ? { expiresAt: new Date(Date.now() + expiresIn) } : {}),
};
try {
  if (command === 'limits') checkLimits(limits);
  if (command === 'create') checkNewToken(newToken);
} catch (error) {
  if (error instanceof ValidationFailed) fail(describeErrors(error));
  throw error;
}
const deployed = command === 'list' ? undefined : api();
if ((command === 'sync-keys' || command === 'sweep-keys') && !deployed)
  fail(`${command} is for a deployed stage (TABLE_NAME, REST_API_ID, STAGE_NAME); locally tokens need no keys`);
if (target) await useLocalStack({}, target);

switch (command) {
  case 'create': {
    const { token, record } = await createToken(newToken);
    if (deployed) {
      try {
        await addTokenKey(deployed, record.id, limits);
      } catch (error) {
        // A token without its key could never be used: take it back.
        await revokeToken(record.id);
        const quota =
          (error as Error).name === 'LimitExceededException'
            ? ' API keys are capped at 10,000 per account and Region: `npm run token -- sweep-keys` removes those of expired and revoked tokens.'
            : '';
        console.error(`Could not create the token's API key (${(error as Error).message}); the token was revoked.${quota}`);
        process.exit(1);
      }
    }
    if (values.json) console.log(JSON.stringify({ token, ...record }));
    else {
      console.log(
        `Token ${record.id} for ${record.workspaces.join(', ')} (${record.scopes.join(' ')}), ${limits.rate} requests/s, burst ${limits.burst}${record.expires_at ? `, expires ${record.expires_at}` : ''}.`,
      );
      console.log('Shown once; only its hash is stored:\n');
      console.log(token);
    }
    break;
  }
  case 'list': {
    const tokens = await listTokens(values.workspace);
    if (values.json) console.log(JSON.stringify(tokens));
    else
      for (const t of tokens) {
        const state = t.revoked ? 'revoked' : usable(t) ? 'active' : 'expired';
        const { rate, burst } = t.rate_limit ?? DEFAULT_RATE_LIMIT;
        console.log(
          `${t.id}  ${state.padEnd(7)}  ${t.owner.username.padEnd(16)}  ${t.scopes.join(' ')}  ${rate}/s burst ${burst}  created ${t.created_at}${t.expires_at ? `  expires ${t.expires_at}` : ''}`,
        );
      }
    break;
  }
  case 'revoke': {
    if (!(await revokeToken(arg!))) fail(`no token ${arg}`);
    if (deployed) await removeTokenKey(deployed, arg!);
    console.log(
      deployed
        ? `Token ${arg} revoked; its API key is deleted, so API Gateway refuses it at once (even while the authorizer's answer for it is cached, up to 300 s).`
        : `Token ${arg} revoked. The local gateway caches the authorizer's answer for a token up to 300 s: requests with it may still be accepted until then (restart npm start to refuse it at once).`,
    );
    break;
  }
  case 'limits': {
    if (!(await isActiveToken(arg!))) fail(`no active token ${arg}`);
    // Bounds were checked first (nothing moves for limits that would be refused), then the key, then the record.
    if (deployed) await placeTokenKey(deployed, arg!, limits);
    if (!(await setTokenLimits(arg!, limits))) fail(`no active token ${arg}`);
    console.log(
      `Token ${arg}: ${limits.rate} requests/s, burst ${limits.burst}` +
        (deployed
          ? ' (its API key is in the plan of these limits now).'
          : " (locally, once the authorizer's cached answer expires: 300 s)."),
    );
    break;
  }
  case 'sync-keys': {
    const outcomes = { created: 0, moved: 0, unchanged: 0 };
    const tokens = await listTokens();
    for (const t of tokens.filter((t) => usable(t))) {
      // A key in the right plan is left alone: no token loses its key while this runs.
      outcomes[await placeTokenKey(deployed!, t.id, t.rate_limit ?? DEFAULT_RATE_LIMIT)]++;
    }
    const swept = await sweepTokenKeys(deployed!, usableIn(tokens), (id) => isUsableToken(id));
    console.log(
      `API keys of active tokens: ${outcomes.created} created, ${outcomes.moved} moved to their plan, ${outcomes.unchanged} in place; ${swept.removed} of expired, revoked or unknown tokens removed.`,
    );
    break;
  }
  case 'sweep-keys': {
    const swept = await sweepTokenKeys(deployed!, usableIn(await listTokens()), (id) => isUsableToken(id));
    console.log(
      `API keys of this stage's tokens: ${swept.removed} removed (expired, revoked or unknown tokens), ${swept.kept} kept. API Gateway holds at most 10,000 keys per account and Region.`,
    );
    break;
  }
}
