import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type EmbeddedDatabase } from '#local/database';
import { throwawayWebhookSecretsKey } from '#local/secrets';
import { startLocalApi, type LocalApi } from './local-api.ts';
import { freePort } from './ports.ts';
import { type LocalStack, stackPerFile } from './stack.ts';

const started: { api: LocalApi; dir: string }[] = [];
let database: EmbeddedDatabase | undefined;

/** A local API (with its stream processor) on the run's DynamoDB Local, and the files it writes in a folder of its own. */
export async function startStack(
  dynamodbPort: number,
  worker: number | string,
): Promise<{ stack: LocalStack; api: LocalApi; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pls-test-'));
  const files = {
    eventsFile: join(dir, 'events.jsonl'),
    streamStatusFile: join(dir, 'stream-status.json'),
    inboundDeadLetterFile: join(dir, 'inbound-dead-letters.jsonl'),
    logFile: join(dir, 'logs.jsonl'),
    metricsFile: join(dir, 'metrics.jsonl'),
  };
  const api = await startLocalApi({
    sharing: dynamodbPort,
    env: {
      DYNAMODB_LOCAL_ACCESS_KEY: `worker${worker}`,
      DATA_DIR: dir,
      EVENTS_FILE: files.eventsFile,
      STREAM_FAILURES_FILE: join(dir, 'stream-failures.jsonl'),
      STREAM_STATUS_FILE: files.streamStatusFile,
      INBOUND_DLQ_FILE: files.inboundDeadLetterFile,
      LOG_FILE: files.logFile,
      METRICS_FILE: files.metricsFile,
    },
  });
  return { stack: { apiUrl: api.url, dynamodbPort, ...files }, api, dir };
}

/**
 * One DynamoDB Local for the whole run, and one local API (with its stream processor) per test worker.
 * DynamoDB Local keeps an in-memory database per access key and serves each on a thread of its own, so
 * the workers do not queue behind each other, and its JVM is started and compiled once, not once per
 * worker (compiling was about a third of its CPU time). Each test file moves its worker's API to a
 * database of its own (test/support/env.ts). A worker finds its stack by VITEST_POOL_ID
 * (test/support/stack.ts). Records a stream processor had to set aside are reported at the end.
 */
export async function setup(project: TestProject) {
  const workers = Number(project.config.maxWorkers) || 1;
  process.env.DYNAMODB_LOCAL_SHORT_LIVED ??= '1';
  // One main key of secrets at rest for the run: the stacks, the workers (tests that read or rekey the
  // table themselves) and the tools they start all open what any of them sealed.
  process.env.WEBHOOK_SECRETS_KEY ??= throwawayWebhookSecretsKey();
  database = await startDynamoDbLocal({ port: await freePort(), sharedDb: false });
  const port = Number(new URL(database.endpoint).port);
  project.provide('dynamodbPort', port);
  // A recording run starts a stack per file instead (env.ts): the workers' would run nothing.
  const stacks = stackPerFile() ? [] : await Promise.all(Array.from({ length: workers }, (_, i) => startStack(port, i + 1)));
  started.push(...stacks);
  project.provide(
    'stacks',
    stacks.map((s) => s.stack),
  );
}

export async function teardown() {
  await Promise.all(started.map(({ api }) => api.stop()));
  await database?.stop();
  for (const { dir } of started) {
    const failures = join(dir, 'stream-failures.jsonl');
    if (existsSync(failures)) {
      const lines = readFileSync(failures, 'utf8').trim().split('\n');
      const describe = (line: string) => {
        const { error, record } = JSON.parse(line) as { error: string; record?: { eventName?: string; dynamodb?: Record<string, any> } };
        const image = record?.dynamodb?.NewImage ?? record?.dynamodb?.OldImage;
        return `${error} (${record?.eventName} ${JSON.stringify(record?.dynamodb?.Keys)}, type ${JSON.stringify(image?.type)})`;
      };
      console.warn(`stream processor set aside ${lines.length} record(s):\n${lines.map(describe).join('\n')}`);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    stacks: LocalStack[];
    /** The run's DynamoDB Local. */
    dynamodbPort: number;
  }
}
