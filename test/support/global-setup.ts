import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalApi, type LocalApi } from './local-api.ts';

/** What a test worker reaches: its own local API, DynamoDB Local, and the files that API writes. */
export interface LocalStack {
  apiUrl: string;
  dynamodbPort: number;
  eventsFile: string;
  streamStatusFile: string;
  inboundDeadLetterFile: string;
  logFile: string;
  metricsFile: string;
}

const started: { api: LocalApi; dir: string }[] = [];

async function startStack(): Promise<LocalStack> {
  const dir = mkdtempSync(join(tmpdir(), 'pls-test-'));
  const files = {
    eventsFile: join(dir, 'events.jsonl'),
    streamStatusFile: join(dir, 'stream-status.json'),
    inboundDeadLetterFile: join(dir, 'inbound-dead-letters.jsonl'),
    logFile: join(dir, 'logs.jsonl'),
    metricsFile: join(dir, 'metrics.jsonl'),
  };
  const api = await startLocalApi({
    env: {
      DATA_DIR: dir,
      EVENTS_FILE: files.eventsFile,
      STREAM_FAILURES_FILE: join(dir, 'stream-failures.jsonl'),
      STREAM_STATUS_FILE: files.streamStatusFile,
      INBOUND_DLQ_FILE: files.inboundDeadLetterFile,
      LOG_FILE: files.logFile,
      METRICS_FILE: files.metricsFile,
    },
  });
  started.push({ api, dir });
  return { apiUrl: api.url, dynamodbPort: api.dynamodbPort, ...files };
}

/**
 * One local API (with its own DynamoDB Local and stream processor) per test worker: DynamoDB Local
 * serves one database on one thread, so workers sharing one would queue behind each other. A worker
 * finds its stack by VITEST_POOL_ID (test/support/stack.ts). Records a stream processor had to set
 * aside are reported at the end.
 */
export async function setup(project: TestProject) {
  const workers = Number(project.config.maxWorkers) || 1;
  project.provide('stacks', await Promise.all(Array.from({ length: workers }, startStack)));
}

export async function teardown() {
  await Promise.all(started.map(({ api }) => api.stop()));
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
  }
}
