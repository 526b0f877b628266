import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalApi, type LocalApi } from './local-api.ts';

let api: LocalApi | undefined;
let dir: string | undefined;

/**
 * One local API (and its DynamoDB Local and stream processor) per test run, shared by every test
 * file. Its outbound events go to a file the event tests read; records its stream processor had to
 * set aside are reported at the end.
 */
export async function setup(project: TestProject) {
  dir = mkdtempSync(join(tmpdir(), 'pls-test-'));
  const eventsFile = join(dir, 'events.jsonl');
  const streamStatusFile = join(dir, 'stream-status.json');
  const inboundDeadLetterFile = join(dir, 'inbound-dead-letters.jsonl');
  const logFile = join(dir, 'logs.jsonl');
  const metricsFile = join(dir, 'metrics.jsonl');
  api = await startLocalApi({
    env: {
      EVENTS_FILE: eventsFile,
      STREAM_FAILURES_FILE: join(dir, 'stream-failures.jsonl'),
      STREAM_STATUS_FILE: streamStatusFile,
      INBOUND_DLQ_FILE: inboundDeadLetterFile,
      LOG_FILE: logFile,
      METRICS_FILE: metricsFile,
    },
  });
  project.provide('apiUrl', api.url);
  project.provide('dynamodbPort', api.dynamodbPort);
  project.provide('eventsFile', eventsFile);
  project.provide('streamStatusFile', streamStatusFile);
  project.provide('inboundDeadLetterFile', inboundDeadLetterFile);
  project.provide('logFile', logFile);
  project.provide('metricsFile', metricsFile);
}

export async function teardown() {
  await api?.stop();
  const failures = dir ? join(dir, 'stream-failures.jsonl') : undefined;
  if (failures && existsSync(failures)) {
    const lines = readFileSync(failures, 'utf8').trim().split('\n');
    const describe = (line: string) => {
      const { error, record } = JSON.parse(line) as { error: string; record?: { eventName?: string; dynamodb?: Record<string, any> } };
      const image = record?.dynamodb?.NewImage ?? record?.dynamodb?.OldImage;
      return `${error} (${record?.eventName} ${JSON.stringify(record?.dynamodb?.Keys)}, type ${JSON.stringify(image?.type)})`;
    };
    console.warn(`stream processor set aside ${lines.length} record(s):\n${lines.map(describe).join('\n')}`);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    dynamodbPort: number;
    eventsFile: string;
    streamStatusFile: string;
    inboundDeadLetterFile: string;
    logFile: string;
    metricsFile: string;
  }
}
