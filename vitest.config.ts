import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import HeaviestFirst from './test/support/sequencer.ts';
import SlowestFiles from './test/support/slowest-files.ts';

/** Tests that need neither a database nor a server: `npm run test:unit` runs them alone. */
const UNIT = ['test/unit/**/*.test.ts', 'test/inbound/deadLetters.test.ts', 'test/docs/links.test.ts'];
/**
 * Unit files that change what other files would load: module mocks, mocked SDK clients, settings read
 * at load or set in process.env (a Region, credentials), the handlers' log and metric switches. Each
 * runs in a module graph of its own; the other unit files share their worker's modules (isolated, the
 * unit tests took 48 s of CPU, shared 29 s).
 */
const UNIT_ISOLATED = [
  'test/inbound/deadLetters.test.ts',
  'test/unit/sealing.test.ts',
  'test/unit/events.test.ts',
  'test/unit/faults.test.ts',
  'test/unit/observability.test.ts',
  'test/unit/settings.test.ts',
  'test/unit/slug-reads.test.ts',
  'test/unit/text.test.ts',
  'test/unit/usagePlans.test.ts',
];
const CDK = ['test/cdk/**/*.test.ts'];
/**
 * Recording what each test file executes (`npm run test:changed`, lib/testmap/record.ts): each file in a
 * process of its own, with a local API of its own (test/support/env.ts), its coverage taken at its end.
 */
const RECORDING = Boolean(process.env.TEST_MAP_RECORD);

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One worker more than cores, each with a local stack of its own: a worker spends most of a file waiting on its
    // API, DynamoDB Local and the stream, and with one per core the cores sat idle 14 % of the run (docs/testing.md).
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: HeaviestFirst },
    reporters: ['default', new SlowestFiles()],
    // What each file cost its worker in CPU time, for the report at the end.
    setupFiles: [...(RECORDING ? ['test/support/coverage-record.ts'] : []), 'test/support/file-cpu.ts'],
    // Handlers run in-process by unit tests log and emit metrics nowhere; tests that read them turn them on.
    // The DynamoDB Locals of a run live minutes: their JVMs compile with the quick compiler alone.
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      DYNAMODB_LOCAL_SHORT_LIVED: '1',
    },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, exclude: [...configDefaults.exclude, ...UNIT_ISOLATED], isolate: RECORDING } },
      { extends: true, test: { name: 'unit-isolated', include: UNIT_ISOLATED } },
      // The stack's templates: the files share their worker's modules, and so one synthesis of each stage.
      { extends: true, test: { name: 'cdk', include: CDK, isolate: RECORDING } },
      {
        extends: true,
        test: {
          name: 'local',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT, ...CDK],
          // A local API with its own DynamoDB Local per worker (test/support/global-setup.ts).
          globalSetup: ['test/support/global-setup.ts'],
          isolate: RECORDING,
          setupFiles: ['test/support/env.ts'],
        },
      },
    ],
  },
});
