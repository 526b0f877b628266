import { partitionLimitsRule } from '#local/partitions/limits';
import { parseRetention, RETENTION_ACCEPTS } from '#domain/activity';
import { DELIVERY_SETTINGS } from '#webhooks/settings';
import { WORKSPACE_RATE_LIMITS_SETTING } from './workspaceRateLimits';
import {
  filePath,
  folderPath,
  host,
  httpUrl,
  logLevel,
  matching,
  numberBetween,
  oneOf,
  origins,
  port,
  powertoolsBoolean,
  Refusal,
  ruleOf,
  wholeNumber,
  type Rule,
} from './rules';

/**
 * Every environment setting of the local stack (`npm start`, the functions it runs and its tools), the
 * one table of them: what each is, what applies when it is unset, and its rule. `npm start` checks
 * them all before it starts anything (check.ts), docs/local.md shows this table (markdown.ts, held
 * to it by a test), and the local modules that read a setting read it through it (`settingValue`).
 * The deployed stack sets the functions' own settings from the CDK app (typed there); Lambda reads no
 * other (docs/local.md says why nothing more is checked at a cold start).
 */
export interface Setting<T = unknown> {
  /** What it is, for docs/local.md (markdown). */
  meaning: string;
  /** What applies when it is unset (plain text: a sentence says it too). */
  unset: string;
  rule: Rule<T>;
  /** How the code reads an empty value: as if unset, or not at all (then an empty value is refused). */
  empty: 'unset' | 'refused';
  /** When a valid value is not used: why (npm start says so, and starts). */
  ignored?: (env: Env) => string | undefined;
}

export type Env = Record<string, string | undefined>;

const setting = <T>(s: Setting<T>): Setting<T> => s;

const forDeployedTable = () => 'npm start does not use it: the token CLI does, with TABLE_NAME, for a deployed table';
const milliseconds = wholeNumber(1, 600_000, 'a whole number of milliseconds from 1 to 600000');
const localFile = (meaning: string, unset: string) => setting({ meaning, unset, rule: filePath, empty: 'unset' });

export const SETTINGS = {
  PORT: setting({ meaning: 'the local API port (`npm start`; `npm run emit` posts to it)', unset: '3000', rule: port, empty: 'refused' }),
  HOST: setting({ meaning: 'the local API address', unset: '127.0.0.1', rule: host, empty: 'refused' }),
  DYNAMODB_PORT: setting({
    meaning: 'DynamoDB Local port, used by `npm start`, the token CLI, `check:table` and tests',
    unset: '8000',
    rule: port,
    empty: 'refused',
  }),
  DYNAMODB_LOCAL_SHARED: setting({
    meaning:
      '`1`: `npm start -- --in-memory` starts no DynamoDB Local and uses the one answering on DYNAMODB_PORT, in a database of its own (DYNAMODB_LOCAL_ACCESS_KEY), leaving it running; the test suite runs its stacks on one',
    unset: '0 (it starts its own)',
    rule: oneOf(['0', '1']),
    empty: 'unset',
  }),
  DYNAMODB_LOCAL_ACCESS_KEY: setting({
    meaning:
      'the access key the local stack and its tools give DynamoDB Local; in memory it keeps a database per key, so two stacks sharing one DynamoDB Local need two keys',
    unset: 'local',
    rule: matching(/^[A-Za-z0-9]{1,128}$/, '1 to 128 letters and digits (DynamoDB Local takes no other)'),
    empty: 'unset',
  }),
  DYNAMODB_LOCAL_SHORT_LIVED: setting({
    meaning:
      "`1`: DynamoDB Local's JVM compiles with its quick compiler only and collects less often (a young generation of a sixteenth of memory, 512 MB at most; its heap starts that much larger): less CPU time for a stack that lives minutes (the test suite's), slower after some tens of thousands of requests",
    unset: '0',
    rule: oneOf(['0', '1']),
    empty: 'unset',
  }),
  DATA_DIR: setting({ meaning: 'where `npm start` keeps its data and files', unset: '.data/', rule: folderPath, empty: 'unset' }),
  TABLE_NAME: setting({
    meaning:
      'the table; with it set (and no `--embedded`), `npm start`, the token CLI and `check:table` use that real table with your AWS credentials',
    unset: 'project-label-service, in DynamoDB Local',
    rule: matching(/^[A-Za-z0-9_.-]{3,255}$/, 'a DynamoDB table name, 3 to 255 letters, digits, _, - or .'),
    empty: 'unset',
  }),
  REST_API_ID: setting({
    meaning: 'with `TABLE_NAME`: the deployed API (stack output `RestApiId`) whose API keys and usage plans the token CLI keeps',
    unset: 'no API keys kept',
    rule: matching(/^[a-z0-9]{10}$/, 'an API Gateway REST API id, 10 lowercase letters and digits'),
    empty: 'unset',
    ignored: forDeployedTable,
  }),
  STAGE_NAME: setting({
    meaning: 'with `REST_API_ID`: its stage (stack output `StageName`)',
    unset: 'no API keys kept',
    rule: matching(/^[A-Za-z0-9_-]{1,128}$/, 'a stage name, letters, digits, _ and -'),
    empty: 'unset',
    ignored: forDeployedTable,
  }),
  DYNAMODB_ENDPOINT: setting({
    meaning: 'DynamoDB endpoint override (set by `npm start` for DynamoDB Local)',
    unset: "AWS's endpoint of the region",
    rule: httpUrl,
    empty: 'unset',
    ignored: (env) =>
      env.TABLE_NAME
        ? undefined
        : 'npm start points the functions at its own DynamoDB Local instead: unset it, or set TABLE_NAME to use yours',
  }),
  DYNAMODB_MAX_ATTEMPTS: setting({
    meaning: 'SDK attempts per DynamoDB call (standard retry mode: exponential backoff with jitter)',
    unset: '4',
    rule: wholeNumber(1, 10),
    empty: 'refused',
  }),
  DYNAMODB_CONNECT_TIMEOUT_MS: setting({
    meaning: 'how long a DynamoDB call may wait to connect',
    unset: '1000, and 10000 for DynamoDB Local',
    rule: milliseconds,
    empty: 'refused',
  }),
  DYNAMODB_REQUEST_TIMEOUT_MS: setting({
    meaning: 'how long a DynamoDB call may wait for its answer',
    unset: '5000, and 30000 for DynamoDB Local',
    rule: milliseconds,
    empty: 'refused',
  }),
  DYNAMODB_PARTITION_LIMITS: setting({
    meaning:
      "throttles `npm start`'s DynamoDB Local as DynamoDB throttles a hot partition, with a token bucket per partition key value of the table and of each index ([the partition simulator](#the-partition-simulator)); never on Lambda",
    unset: 'no throttling',
    rule: partitionLimitsRule,
    empty: 'unset',
  }),
  WORKSPACE_RATE_LIMITS: setting(WORKSPACE_RATE_LIMITS_SETTING),
  POWERTOOLS_LOG_LEVEL: setting({
    meaning: "the functions' log level (Powertools); the stack sets it per stage",
    unset: 'INFO',
    rule: logLevel,
    empty: 'unset',
  }),
  POWERTOOLS_LOGGER_SAMPLE_RATE: setting({
    meaning: 'share of invocations logged at DEBUG whatever the level (prod: `0.01`)',
    unset: '0',
    rule: numberBetween(0, 1, '0.01'),
    empty: 'unset',
  }),
  POWERTOOLS_SERVICE_NAME: setting({
    meaning: 'the `service` of every log line and metric; the stack sets the stage prefix',
    unset: 'project-label-service-local under npm start',
    // A CloudWatch dimension value: ASCII, and here without spaces.
    rule: matching(/^[!-~]{1,255}$/, '1 to 255 ASCII letters, digits and punctuation, without spaces'),
    empty: 'unset',
  }),
  POWERTOOLS_METRICS_DISABLED: setting({
    meaning: "`true` stops the metrics lines (the tests' in-process handlers use it)",
    unset: 'metrics on',
    rule: powertoolsBoolean,
    empty: 'refused',
  }),
  LOG_FILE: localFile("where `npm start` writes the functions' log lines", '.data/logs.jsonl'),
  METRICS_FILE: localFile("where `npm start` writes the functions' metrics lines", '.data/metrics.jsonl'),
  LOG_ECHO: setting({
    meaning: '`0`: `npm start` shows no log lines on the console (the files still get them)',
    unset: '1',
    rule: oneOf(['0', '1']),
    empty: 'unset',
  }),
  CORS_ORIGINS: setting({
    meaning: 'origins the handlers allow (`Access-Control-Allow-Origin`); the stack sets it from `-c corsOrigins`',
    unset: '*',
    rule: origins,
    empty: 'unset',
  }),
  CURSOR_KEY: setting({
    meaning: 'the HMAC key of pagination cursors; the stack sets it from its secret',
    unset: 'the key kept in .data/cursor.key (with --in-memory, a new one)',
    rule: matching(/^[!-~]{32,}$/, 'at least 32 ASCII letters, digits and punctuation, without spaces'),
    empty: 'unset',
  }),
  WEBHOOK_SECRETS_KEY: setting({
    meaning: 'the main key webhook secrets are sealed under locally (deployed, a KMS key of the stack: WEBHOOK_SECRETS_KMS_KEY_ID)',
    unset: 'the key kept in .data/webhook-secrets.key (made at the first start)',
    rule: matching(/^[A-Za-z0-9+/]{43}=$/, 'base64 of 32 bytes (44 characters, ending in =)'),
    empty: 'unset',
  }),
  WEBHOOK_SECRETS_KMS_KEY_ID: setting({
    meaning:
      'the KMS key webhook secrets are sealed under deployed (the stack sets it on the functions that seal or open them); set it for `npm run rekey` against a deployed table',
    unset: 'the local key (WEBHOOK_SECRETS_KEY)',
    rule: matching(
      /^(arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:(key|alias)\/[\w/-]+|alias\/[\w/-]+|[0-9a-f-]{36})$/,
      'a KMS key ARN, key id or alias',
    ),
    empty: 'unset',
  }),
  AUTHORIZER_CACHE_TTL_SECONDS: setting({
    meaning: 'how long the local gateway caches an authorizer policy per token, as API Gateway does (0: no cache)',
    unset: '300',
    rule: wholeNumber(0, 3600),
    empty: 'refused',
  }),
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: setting({
    meaning: '`true`: webhooks may deliver over `http` and to loopback and private addresses (never honoured on Lambda)',
    unset: 'false',
    rule: oneOf(['true', 'false']),
    empty: 'unset',
  }),
  WEBHOOKS_RETRY_SCHEDULE: setting({
    meaning: 'the webhook retry waits (never read on Lambda)',
    unset: '5s,5m,30m,2h,5h,10h,10h',
    rule: ruleOf(DELIVERY_SETTINGS.WEBHOOKS_RETRY_SCHEDULE),
    empty: 'unset',
  }),
  WEBHOOKS_TIMEOUT: setting({
    meaning: "a webhook endpoint's time to answer (never read on Lambda)",
    unset: '10s',
    rule: ruleOf(DELIVERY_SETTINGS.WEBHOOKS_TIMEOUT),
    empty: 'unset',
  }),
  WEBHOOKS_DEACTIVATE_AFTER: setting({
    meaning: 'how long a webhook endpoint may fail before it is turned off (never read on Lambda)',
    unset: '5d',
    rule: ruleOf(DELIVERY_SETTINGS.WEBHOOKS_DEACTIVATE_AFTER),
    empty: 'unset',
  }),
  ACTIVITY_RETENTION: setting({
    meaning: 'how long history entries (`GET /activities`) are kept; an entry past it is never answered',
    unset: '90d',
    rule: { accepts: RETENTION_ACCEPTS, read: (text) => parseRetention(text) ?? new Refusal() },
    empty: 'unset',
  }),
  WEBHOOK_DLQ_FILE: localFile(
    "where the deliverer's dead letters are written (malformed messages, deliveries lost four times)",
    '.data/events.webhook-dead-letters.jsonl',
  ),
  EVENTS_FILE: localFile('where `npm start` writes the outbound events (`npm run events:follow` reads it)', '.data/events.jsonl'),
  INBOUND_DLQ_FILE: localFile('where inbound events are dead-lettered, with the reason', '.data/events.inbound-dead-letters.jsonl'),
  STREAM_FAILURES_FILE: localFile('where stream records set aside after their retries go', '.data/events.failures.jsonl'),
  STREAM_STATUS_FILE: localFile('where the stream processor says when it last caught up', '.data/events.stream-status.json'),
};

export type SettingName = keyof typeof SETTINGS;
