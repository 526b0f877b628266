import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The heaviest files first, so that the workers finish together instead of one of them starting a long
 * file last (on a fresh clone vitest has no timings of its own and orders by file size, which says
 * little here: a three-line file can run the whole fault-injection matrix of six routes). The list
 * follows the slowest files `npm test` reports at its end; the rest keep vitest's own order.
 */
const HEAVIEST = [
  'test/hostile/bulk-contention-2.test.ts',
  'test/hostile/first-hour.test.ts',
  'test/hostile/bulk-contention-3.test.ts',
  'test/integration/label-links.test.ts',
  'test/integration/label-limits.test.ts',
  'test/integration/label-limit-contention.test.ts',
  'test/integration/label-deletes.test.ts',
  'test/hostile/tokens-cli.test.ts',
  'test/hostile/cli-arguments-1.test.ts',
  'test/hostile/cli-arguments-2.test.ts',
  'test/reliability/durability.test.ts',
  'test/reliability/fuzz-1.test.ts',
  'test/reliability/fuzz-2.test.ts',
  'test/reliability/fuzz-3.test.ts',
  'test/reliability/concurrency-1.test.ts',
  'test/reliability/concurrency-2.test.ts',
  'test/reliability/concurrency-3.test.ts',
  'test/reliability/concurrency-4.test.ts',
  'test/reliability/fault-injection/routes-1.test.ts',
  'test/reliability/fault-injection/routes-2.test.ts',
  'test/reliability/fault-injection/routes-3.test.ts',
  'test/reliability/fault-injection/routes-4.test.ts',
  'test/reliability/fault-injection/routes-5.test.ts',
  'test/inbound/property.test.ts',
  'test/stream/redelivery.test.ts',
  'test/reliability/fault-injection/inbound-consumer.test.ts',
  'test/reliability/fault-injection/stream-processor.test.ts',
  'test/integration/isolation.test.ts',
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
