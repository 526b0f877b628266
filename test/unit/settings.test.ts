import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterAll, describe, expect, test } from 'vitest';
import { quoted } from '#domain/quoted';
import { repoRoot } from '#lib/paths';
import { checkSettings, type SettingProblem } from '#lib/settings/check';
import { SETTINGS_BEGIN, SETTINGS_END, settingsMarkdown } from '#lib/settings/markdown';
import { logLevel, powertoolsBoolean, Refusal } from '#lib/settings/rules';
import { SETTINGS, type SettingName } from '#lib/settings/table';
import { freePort } from '#support/ports';

/**
 * Settings are checked, not silently replaced: every setting the documentation names is in one table
 * with its rule, a wrong value of each is refused in one sentence that names the setting, the value and
 * what it accepts, and `npm start` refuses to start on one (exit 1, nothing started).
 */
const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');
const PAGES = ['README.md', ...readdirSync(join(repoRoot, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
const scratch = mkdtempSync(join(tmpdir(), 'pls-settings-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Upper-case names the pages mention that are not environment settings at all. */
const NOT_SETTINGS = new Set([
  // error codes of the API and its gateway
  'RATE_LIMIT_EXCEEDED',
  'PROJECT_NOT_FOUND',
  'SYNC_TOKEN_EXPIRED',
  'LABEL_NOT_FOUND',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'VALIDATION_ERROR',
  'TOKEN_INVALID',
  'MISSING_AUTHENTICATION_TOKEN',
  'INVALID_API_KEY',
  // DynamoDB's words, and names in the code
  'ALL_NEW',
  'NEW_AND_OLD_IMAGES',
  'LABEL_ID',
  'OUTBOUND_TYPES',
  'CHANGE_TYPES',
  'OPERATIONAL_TYPES',
  'WEBHOOK_EVENT_TYPES',
  'INBOUND_TYPES',
  'OUTBOUND_DETAILS',
  // CloudFormation's words
  'ROLLBACK_FAILED',
  // a misspelt setting, as docs/webhooks.md shows the start naming it
  'WEBHOOK_ALLOW_PRIVATE_TARGETS',
]);
/** Settings of something else than the local stack: what reads them. */
const ELSEWHERE: Record<string, string> = {
  TOKEN: 'a shell variable of the examples (and npm run invoke)',
  API_URL: 'a shell variable of deploy.md, and the test suite against a deployed stack',
  GITSCRUM_API_URL: "GitScrum's client",
  WEBHOOK_SECRET: 'a receiver (the example of webhooks.md, npm run webhooks:listen)',
  AWS_REGION: 'the AWS SDK and CLI',
  AWS_PROFILE: 'the AWS SDK and CLI',
  AWS_ACCESS_KEY_ID: 'the AWS SDK',
  AWS_SECRET_ACCESS_KEY: 'the AWS SDK',
  AWS_LAMBDA_LOG_LEVEL: 'Lambda',
  NODE_OPTIONS: 'Node',
  NODE_V8_COVERAGE: 'Node (npm run test:changed records with it)',
  SOAK_OPERATIONS: 'npm run soak',
  SOAK_CONCURRENCY: 'npm run soak',
  SOAK_SEED: 'npm run soak',
  FUZZ_SEED: 'the fuzz test',
  FUZZ_RUNS: 'the fuzz test',
  CHROMIUM_PATH: 'the test of the API reference page (test/integration/swagger-ui.test.ts)',
};

const names = (): SettingName[] => Object.keys(SETTINGS) as SettingName[];

describe('one table of the settings', () => {
  test('every setting the README and docs/ name is in it', () => {
    const named = new Set(
      PAGES.flatMap((page) => [...read(page).matchAll(/\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]|PORT|HOST|TOKEN)\b/g)].map((m) => m[0])),
    );
    const missing = [...named].filter((n) => !NOT_SETTINGS.has(n) && !(n in ELSEWHERE) && !(n in SETTINGS));
    expect(missing).toEqual([]);
  });

  test('every setting in it is read: by the code, or by Powertools', () => {
    const sources = (dir: string): string[] =>
      readdirSync(join(repoRoot, dir)).flatMap((name) => {
        const path = `${dir}/${name}`;
        if (statSync(join(repoRoot, path)).isDirectory()) return path === 'lib/settings' ? [] : sources(path);
        return /\.(ts|js)$/.test(name) ? [read(path)] : [];
      });
    const code = [
      'functions',
      'lib',
      'bin',
      'node_modules/@aws-lambda-powertools/logger/lib/esm',
      'node_modules/@aws-lambda-powertools/metrics/lib/esm',
    ]
      .flatMap(sources)
      .join('\n');
    expect(names().filter((name) => !code.includes(`'${name}'`) && !code.includes(`.${name}`))).toEqual([]);
  });

  test('docs/local.md shows it as it is (paste the expected text when it changes)', () => {
    const page = read('docs/local.md');
    const section = page.slice(page.indexOf(SETTINGS_BEGIN), page.indexOf(SETTINGS_END) + SETTINGS_END.length);
    expect(section).toBe(settingsMarkdown());
  });

  test('the sentences docs/local.md shows are the ones npm start says', () => {
    const page = read('docs/local.md');
    const block = /## Settings[\s\S]*?```\n([\s\S]*?)```/.exec(page)![1]!.trim().split('\n');
    for (const sentence of block) {
      const [, name, value] = /^([A-Z_]+) is "([^"]*)"/.exec(sentence)!;
      expect(checkSettings({ [name!]: value }).map((p) => p.message)).toEqual([sentence]);
    }
  });
});

/** A wrong value of each setting, odd Unicode and empty ones among them. */
const WRONG: [SettingName, string][] = [
  ['PORT', 'abc'],
  ['PORT', '70000'],
  ['PORT', '0'],
  ['PORT', '３０００'],
  ['PORT', ''],
  ['PORT', ' 3000'],
  ['HOST', 'local host'],
  ['HOST', ''],
  ['DYNAMODB_PORT', '8000.5'],
  ['DYNAMODB_PORT', ''],
  ['DYNAMODB_LOCAL_SHARED', 'yes'],
  ['DYNAMODB_LOCAL_ACCESS_KEY', 'worker-1'],
  ['DYNAMODB_LOCAL_ACCESS_KEY', 'ke\u200By'],
  ['DYNAMODB_LOCAL_SHORT_LIVED', 'true'],
  ['DATA_DIR', join(repoRoot, 'package.json')],
  ['DATA_DIR', 'data\u0007dir'],
  ['TABLE_NAME', 'my table'],
  ['TABLE_NAME', 'tâble'],
  ['REST_API_ID', 'ABC'],
  ['STAGE_NAME', 'dev/1'],
  ['DYNAMODB_ENDPOINT', 'localhost:8000'],
  ['DYNAMODB_MAX_ATTEMPTS', '0'],
  ['DYNAMODB_MAX_ATTEMPTS', ''],
  ['DYNAMODB_CONNECT_TIMEOUT_MS', '1e3'],
  ['DYNAMODB_REQUEST_TIMEOUT_MS', '-5'],
  ['DYNAMODB_PARTITION_LIMITS', 'rcu=20,wcu=10'],
  ['DYNAMODB_PARTITION_LIMITS', 'rcu=20,wcu=10,burst=0'],
  ['DYNAMODB_PARTITION_LIMITS', 'rcu=20,wcu=10,burst=1,rcu=5'],
  ['DYNAMODB_PARTITION_LIMITS', 'rcu=20, wcu=10, burst=1'],
  ['DYNAMODB_PARTITION_LIMITS', 'rcu=1.5,wcu=10,burst=1'],
  ['DYNAMODB_PARTITION_LIMITS', 'rcu=20,wcu=10,burst=1\n'],
  ['WORKSPACE_RATE_LIMITS', 'rcu=0,wcu=900'],
  ['WORKSPACE_RATE_LIMITS', 'rcu=2700,wcu=100001'],
  ['WORKSPACE_RATE_LIMITS', 'wcu=900,rcu=2700'],
  ['WORKSPACE_RATE_LIMITS', 'rcu=2700'],
  ['WORKSPACE_RATE_LIMITS', 'rcu=٢٧٠٠,wcu=900'],
  ['WORKSPACE_RATE_LIMITS', 'rcu=2700,wcu=900\n'],
  ['POWERTOOLS_LOG_LEVEL', 'VERBOSE'],
  ['POWERTOOLS_LOG_LEVEL', 'debug'],
  ['POWERTOOLS_LOG_LEVEL', 'DEBUG\u200b'],
  ['POWERTOOLS_LOGGER_SAMPLE_RATE', '2'],
  ['POWERTOOLS_LOGGER_SAMPLE_RATE', 'half'],
  ['POWERTOOLS_SERVICE_NAME', 'café'],
  ['POWERTOOLS_METRICS_DISABLED', 'maybe'],
  ['POWERTOOLS_METRICS_DISABLED', ''],
  ['LOG_FILE', tmpdir()],
  ['METRICS_FILE', 'metrics\n.jsonl'],
  ['LOG_ECHO', 'false'],
  ['CORS_ORIGINS', 'https://app.example.com/'],
  ['CORS_ORIGINS', 'https://a.example.com,,https://b.example.com'],
  ['CORS_ORIGINS', 'https://bücher.example'],
  ['CURSOR_KEY', 'short'],
  ['WEBHOOK_SECRETS_KEY', 'c2hvcnQ='],
  ['WEBHOOK_SECRETS_KMS_KEY_ID', 'my key'],
  ['WEBHOOK_SECRETS_KEY', `${'A'.repeat(43)}==`],
  ['AUTHORIZER_CACHE_TTL_SECONDS', '3601'],
  ['AUTHORIZER_CACHE_TTL_SECONDS', ''],
  ['WEBHOOKS_ALLOW_PRIVATE_TARGETS', 'TRUE'],
  ['WEBHOOKS_RETRY_SCHEDULE', '1s,,5s'],
  ['WEBHOOKS_RETRY_SCHEDULE', '5 seconds'],
  ['WEBHOOKS_TIMEOUT', '0s'],
  ['WEBHOOKS_DEACTIVATE_AFTER', '5'],
  ['ACTIVITY_RETENTION', '0d'],
  ['ACTIVITY_RETENTION', '90 days'],
  ['ACTIVITY_RETENTION', '100000000d'],
  ['WEBHOOK_DLQ_FILE', tmpdir()],
  ['EVENTS_FILE', tmpdir()],
  ['INBOUND_DLQ_FILE', '\u0000'],
  ['STREAM_FAILURES_FILE', tmpdir()],
  ['STREAM_STATUS_FILE', 'status\r.json'],
];

/** A value each setting accepts. */
const RIGHT: Record<SettingName, string> = {
  PORT: '3001',
  HOST: '::1',
  DYNAMODB_PORT: '8001',
  DYNAMODB_LOCAL_SHARED: '1',
  DYNAMODB_LOCAL_ACCESS_KEY: 'worker1',
  DYNAMODB_LOCAL_SHORT_LIVED: '1',
  DATA_DIR: join(scratch, 'data'),
  TABLE_NAME: 'project-label-service-dev',
  WORKSPACE_RATE_LIMITS: 'rcu=2700,wcu=900',
  REST_API_ID: 'abc123def4',
  STAGE_NAME: 'dev',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
  DYNAMODB_MAX_ATTEMPTS: '4',
  DYNAMODB_CONNECT_TIMEOUT_MS: '1000',
  DYNAMODB_REQUEST_TIMEOUT_MS: '30000',
  DYNAMODB_PARTITION_LIMITS: 'rcu=20,wcu=10,burst=0.5',
  POWERTOOLS_LOG_LEVEL: 'DEBUG',
  POWERTOOLS_LOGGER_SAMPLE_RATE: '0.01',
  POWERTOOLS_SERVICE_NAME: 'project-label-service-local',
  POWERTOOLS_METRICS_DISABLED: 'true',
  LOG_FILE: join(scratch, 'logs.jsonl'),
  METRICS_FILE: join(scratch, 'metrics.jsonl'),
  LOG_ECHO: '0',
  CORS_ORIGINS: 'https://app.example.com,http://localhost:5173',
  CURSOR_KEY: 'k'.repeat(43),
  WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  WEBHOOK_SECRETS_KMS_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  AUTHORIZER_CACHE_TTL_SECONDS: '0',
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOKS_RETRY_SCHEDULE: '100ms,200ms',
  WEBHOOKS_TIMEOUT: '1s',
  WEBHOOKS_DEACTIVATE_AFTER: '250ms',
  ACTIVITY_RETENTION: '8s',
  WEBHOOK_DLQ_FILE: join(scratch, 'webhook-dead-letters.jsonl'),
  EVENTS_FILE: join(scratch, 'events.jsonl'),
  INBOUND_DLQ_FILE: join(scratch, 'inbound-dead-letters.jsonl'),
  STREAM_FAILURES_FILE: join(scratch, 'failures.jsonl'),
  STREAM_STATUS_FILE: join(scratch, 'status.json'),
};

describe('checkSettings', () => {
  test('every setting has a wrong value below', () => {
    expect(names().filter((name) => !WRONG.some(([n]) => n === name))).toEqual([]);
  });

  test.each(WRONG)('%s=%j is refused in one sentence naming it, the value and what it accepts', (name, value) => {
    const problems = checkSettings({ [name]: value });
    expect(problems).toHaveLength(1);
    const [p] = problems as [SettingProblem];
    expect(p).toMatchObject({ setting: name, severity: 'error' });
    expect(p.message.startsWith(`${name} is `)).toBe(true);
    expect(p.message).toContain(value === '' ? 'is set but empty' : `is ${quoted(value)}`);
    expect(p.message).toContain(`use ${SETTINGS[name].rule.accepts}, or unset it (then ${SETTINGS[name].unset}).`);
    // eslint-disable-next-line no-control-regex -- the values' control characters must not reach the sentence
    expect(p.message).not.toMatch(/[\n\r\u0000\u0007]/);
    expect(p.message.endsWith('.')).toBe(true);
  });

  test('a value each accepts passes; one npm start does not use is a warning', () => {
    const problems = checkSettings({ ...RIGHT, TABLE_NAME: undefined });
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(problems.map((p) => p.setting).sort()).toEqual(['DYNAMODB_ENDPOINT', 'REST_API_ID', 'STAGE_NAME']);
    expect(problems.find((p) => p.setting === 'DYNAMODB_ENDPOINT')!.message).toBe(
      'DYNAMODB_ENDPOINT is set, but npm start points the functions at its own DynamoDB Local instead: unset it, or set TABLE_NAME to use yours.',
    );
    expect(checkSettings({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', TABLE_NAME: 'mine' })).toEqual([]);
  });

  test('an empty value is unset where the code reads it so, and nothing unset is a problem', () => {
    expect(checkSettings({})).toEqual([]);
    expect(checkSettings({ TABLE_NAME: '', POWERTOOLS_LOG_LEVEL: '', LOG_FILE: '', CORS_ORIGINS: '' })).toEqual([]);
  });

  test("a variable that begins as a setting does but is none is a warning naming the nearest settings; other software's are not", () => {
    const problems = checkSettings({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      DYNAMODB_PROT: '9000',
      WEBHOOKS_FOO: 'x',
      HOSTNAME: 'box',
      AWS_REGION: 'x',
    });
    expect(problems.map((p) => [p.severity, p.message])).toEqual([
      ['warning', 'DYNAMODB_PROT is not a setting of this service, so it changes nothing (did you mean DYNAMODB_PORT?).'],
      ['warning', 'WEBHOOKS_FOO is not a setting of this service, so it changes nothing (docs/local.md lists the settings).'],
      [
        'warning',
        'WEBHOOK_ALLOW_PRIVATE_TARGETS is not a setting of this service, so it changes nothing (did you mean WEBHOOKS_ALLOW_PRIVATE_TARGETS?).',
      ],
    ]);
  });

  test('several wrong values: one sentence each, in the order of the table', () => {
    const problems = checkSettings({ POWERTOOLS_LOG_LEVEL: 'VERBOSE', PORT: 'abc' });
    expect(problems.map((p) => p.setting)).toEqual(['PORT', 'POWERTOOLS_LOG_LEVEL']);
  });
});

describe("Powertools' own reading agrees with the rules", () => {
  /** Runs `make` with the environment changed, then puts it back. */
  function withEnv<T>(env: Record<string, string>, make: () => T): T {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      return make();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  test.each(['DEBUG', 'TRACE', 'WARN', 'CRITICAL', 'SILENT', 'VERBOSE', 'debug', 'Info', 'DEBUG\u200b'])(
    'POWERTOOLS_LOG_LEVEL=%j: a level the rule refuses is one Powertools silently replaces by INFO',
    (value) => {
      const level = withEnv({ POWERTOOLS_LOG_LEVEL: value }, () => new Logger().getLevelName());
      expect(level).toBe(logLevel.read(value) instanceof Refusal ? 'INFO' : value);
    },
  );

  test.each(['true', 'false', 'TRUE', '1', '0', 'yes', 'off', 'maybe', 'enabled', ''])(
    'POWERTOOLS_METRICS_DISABLED=%j: a value the rule refuses is one Powertools cannot read',
    (value) => {
      const make = () => withEnv({ POWERTOOLS_METRICS_DISABLED: value }, () => new Metrics({ namespace: 'Test' }));
      if (value === '' || powertoolsBoolean.read(value) instanceof Refusal) expect(make).toThrow();
      else expect(make).not.toThrow();
    },
  );
});

describe('npm start with a wrong setting', () => {
  test('POWERTOOLS_LOG_LEVEL=VERBOSE: exit 1, the sentence on stderr, nothing started', async () => {
    const dataDir = join(scratch, 'start');
    const [port, dynamodbPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts', '--in-memory'], {
      cwd: repoRoot,
      env: {
        // The worker's own settings left out: only the one under test is wrong, and nothing else is said.
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in SETTINGS))),
        POWERTOOLS_LOG_LEVEL: 'VERBOSE',
        DATA_DIR: dataDir,
        PORT: String(port),
        DYNAMODB_PORT: String(dynamodbPort),
        TABLE_NAME: '',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    // It ends by itself; a start that goes on (today's main did) is stopped once READY, when stopping it
    // stops its DynamoDB Local too.
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      const begun = () => stdout.includes('READY') && child.kill('SIGTERM');
      child.stdout.on('data', begun);
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    });
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'POWERTOOLS_LOG_LEVEL is "VERBOSE": use one of TRACE, DEBUG, INFO, WARN, ERROR, SILENT or CRITICAL, or unset it (then INFO).\n',
    });
    expect(existsSync(join(dataDir, 'local-stack.json'))).toBe(false);
  });
});
