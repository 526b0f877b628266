import { Duration } from 'aws-cdk-lib';
import { MathExpression, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { TABLE } from '#store/table';

/**
 * DynamoDB's throttle metrics for the table and for each of its global secondary indexes (their names from
 * the table definition, functions/commons/store/table.ts): what the dashboard draws per table and index, and
 * what the throttle alarm sums. A write throttled by an index's partition counts on that index's metrics
 * (dimensions TableName and GlobalSecondaryIndexName), not on the table's (TableName alone).
 */

/** One-minute points: the alarm's period, and the dashboard's for these graphs. */
const THROTTLE_PERIOD = Duration.minutes(1);

type Kind = 'Read' | 'Write';
const KINDS: readonly Kind[] = ['Read', 'Write'];

/** The table, or one of its indexes: the name it is shown under and the dimensions of its metrics. */
interface ThrottleScope {
  /** `table`, or the index's name (`GSI1`, ...). */
  name: string;
  /** A metric-math id prefix: lowercase letters and digits. */
  id: string;
  dimensionsMap: Record<string, string>;
}

export function throttleScopes(table: ITable): ThrottleScope[] {
  return [
    { name: 'table', id: 'table', dimensionsMap: { TableName: table.tableName } },
    ...Object.values(TABLE.indexes).map((index) => ({
      name: index.name,
      id: index.name.toLowerCase(),
      dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: index.name },
    })),
  ];
}

const sum = (table: ITable, scope: ThrottleScope, metricName: string, label?: string) =>
  table.metric(metricName, { dimensionsMap: scope.dimensionsMap, statistic: 'Sum', period: THROTTLE_PERIOD, ...(label ? { label } : {}) });

/**
 * A graph's lines for one scope: its read and write throttle events (every cause), and the key-range ones
 * (ReadKeyRangeThroughputThrottleEvents, WriteKeyRangeThroughputThrottleEvents: throttled because one
 * partition's own limit was exceeded, that is a hot partition key).
 */
export function throttleLines(table: ITable, scope: ThrottleScope): IMetric[] {
  return [
    ...KINDS.map((kind) => sum(table, scope, `${kind}ThrottleEvents`, `${kind} throttles`)),
    ...KINDS.map((kind) => sum(table, scope, `${kind}KeyRangeThroughputThrottleEvents`, `${kind} throttles, hot partition`)),
  ];
}

/** CloudWatch's hard limit on the metrics an alarm on a math expression references. */
const ALARM_METRICS_LIMIT = 10;

/**
 * Throttled read and write events of the table and of every index, summed per minute. These metrics may have
 * no datapoint in a minute where nothing was throttled, so each is filled with 0 first: a minute in which one
 * index alone was throttled sums to its count, whatever metric math makes of the others' missing points.
 * Two metrics per table or index (six with two indexes), within the alarm's limit.
 */
export function allThrottleEvents(table: ITable): MathExpression {
  const usingMetrics = Object.fromEntries(
    throttleScopes(table).flatMap((scope) =>
      KINDS.map((kind) => [`${kind.toLowerCase()}_${scope.id}`, sum(table, scope, `${kind}ThrottleEvents`)] as const),
    ),
  );
  const count = Object.keys(usingMetrics).length;
  if (count > ALARM_METRICS_LIMIT)
    throw new Error(`the throttle alarm would reference ${count} metrics; CloudWatch takes at most ${ALARM_METRICS_LIMIT}`);
  return new MathExpression({
    label: 'Throttled events (table and indexes)',
    expression: `SUM([${Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(', ')}])`,
    usingMetrics,
    period: THROTTLE_PERIOD,
  });
}
