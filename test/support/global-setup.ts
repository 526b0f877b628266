import type { TestProject } from 'vitest/node';
import { startLocalApi, type LocalApi } from './local-api.ts';

let api: LocalApi | undefined;

/** One local API (and its DynamoDB Local) per test run, shared by every test file. */
export async function setup(project: TestProject) {
  api = await startLocalApi();
  project.provide('apiUrl', api.url);
  project.provide('dynamodbPort', api.dynamodbPort);
}

export async function teardown() {
  await api?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    apiUrl: string;
    dynamodbPort: number;
  }
}
