import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The heaviest files first, so that the workers finish together instead of one of them starting a long
 * file last (on a fresh clone vitest has no timings of its own and orders by file size, which says
 * little here: a three-line file can run the whole fault-injection matrix of six routes). The list: every file
 * that took 12 s or more in a fresh clone's run on the slower CI CPU, longest first (the longest-first rule leaves
 * the workers at most about one short file apart at the end); the rest keep vitest's own order. A new slow file
 * belongs in it (`npm test` reports the ten slowest at its end).
 */
const HEAVIEST = [
  'test/integration/capacity.test.ts',
  'test/reliability/fault-injection/stream-processor.test.ts',
  'test/client/client.test.ts',
  'test/webhooks/deliveries.test.ts',
  'test/integration/workspace-limits.test.ts',
  'test/client/live.test.ts',
  'test/reliability/durability.test.ts',
  'test/testmap/recording.test.ts',
  'test/cdk/compliance.test.ts',
  'test/integration/label-deletes.test.ts',
  'test/events/bundles.test.ts',
  'test/hostile/cli-arguments-2.test.ts',
  'test/hostile/first-hour.test.ts',
  'test/reliability/concurrency-4.test.ts',
  'test/reliability/concurrency-1.test.ts',
  'test/integration/label-limits.test.ts',
  'test/integration/history-sync.test.ts',
  'test/integration/authorizer-throttled.test.ts',
  'test/cdk/stack.test.ts',
  'test/hostile/races.test.ts',
  'test/hostile/cli-arguments-1.test.ts',
  'test/docs/local-examples.test.ts',
  'test/reliability/fault-injection/routes-5.test.ts',
  'test/reliability/fuzz-1.test.ts',
  'test/stream/redelivery.test.ts',
  'test/integration/labels.test.ts',
  'test/integration/label-limit-contention.test.ts',
  'test/reliability/concurrency-2.test.ts',
  'test/integration/partition-simulator.test.ts',
  'test/reliability/throttled-consumers.test.ts',
  'test/docs/operations-examples.test.ts',
  'test/integration/answer-size.test.ts',
  'test/reliability/fault-injection/routes-1.test.ts',
];

function rank(file: TestSpecification): number {
  const i = HEAVIEST.findIndex((path) => file.moduleId.endsWith(path));
  return i === -1 ? HEAVIEST.length : i;
}

export default class HeaviestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
