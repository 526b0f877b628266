import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * DynamoDB Local keeps the stream records of every table in one store (24 h), and its writes and stream
 * reads slow down as that store grows. The files that write many tables of their own and drain their
 * streams in-process therefore run first, while the store is small: fault injection took 111-119 s
 * run first and 273-300 s run after the integration files. The other files keep vitest's own order
 * (slowest first once it has timings, by size on a fresh clone).
 */
const FIRST = ['test/reliability/fault-injection.test.ts', 'test/stream/redelivery.test.ts'];

function rank(file: TestSpecification): number {
  const i = FIRST.findIndex((path) => file.moduleId.endsWith(path));
  return i === -1 ? FIRST.length : i;
}

export default class StreamHeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
