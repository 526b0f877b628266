import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { TABLE } from '#store/table';
import { synthesize, type Synthesized } from './synth.ts';

// A synthesized template is untyped JSON; the assertions below walk it freely.
type Resource = { Type: string; Properties: Record<string, any> };
type Widget = { type: string; x: number; y: number; width: number; height: number; properties: Record<string, any> };
/** One line of a graph: a metric (namespace, name, dimensions) or an expression, with its options. */
interface Line {
  widget: string;
  namespace?: string;
  metricName?: string;
  dimensions: Record<string, string>;
  expression?: string;
  label?: string;
  stat?: string;
  period?: number;
  visible?: boolean;
}

const PREFIX = 'project-label-service-dev';
/** The table's global secondary indexes, from its definition (the dashboard and the throttle alarm cover each). */
const INDEXES = Object.values(TABLE.indexes).map((index) => index.name);
/** The dimensions of DynamoDB's metrics for the table (`table`) or one of its indexes (by name). */
const throttleDimensions = (scope: string): Record<string, string> =>
  scope === 'table' ? { TableName: PREFIX } : { TableName: PREFIX, GlobalSecondaryIndexName: scope };
/** Every function of the stack, by short name: one per route, and the four that are not routes. */
const FUNCTIONS = [...routes.map((r) => r.name), 'authorizer', 'stream-processor', 'inbound-consumer', 'webhook-deliverer'];
/** The metrics the handlers emit (Powertools Metrics, EMF), per `service` and `route`: the dashboard's contract. */
const SERVICE_METRICS = [
  'Requests',
  'Status2xx',
  'Status3xx',
  'Status4xx',
  'Status5xx',
  'Unavailable',
  'TokensAccepted',
  'TokensRefused',
  'AuthorizerFailures',
  'ConflictRetries',
  'CascadeItemsRemoved',
  'EventsPublished',
  'EventsApplied',
  'EventsDropped',
  'EventsDeadLettered',
  'WebhookAttempts',
  'WebhookDeliveries',
  'WebhookAttemptsFailed',
  'WebhookDeliveriesFailed',
  'WebhookDeliveriesRequeued',
  'WebhookDeliveriesParked',
  'WebhookRecordRetries',
];

/**
 * The dashboard body as the console gets it: CloudFormation joins strings and references, so references are
 * replaced by what they resolve to at deploy time (physical names are fixed by the stack), the region by REGION.
 */
function dashboardBody(template: Synthesized['template']): { name: string; widgets: Widget[]; raw: string } {
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const [, dashboard, ...others] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::CloudWatch::Dashboard') ?? [];
  expect(others).toEqual([]);
  if (!dashboard) throw new Error('no dashboard');
  const nameOf = (id: string): string => {
    const r = resources[id];
    if (!r) throw new Error(`unknown reference ${id}`);
    const name = r.Properties.FunctionName ?? r.Properties.TableName ?? r.Properties.QueueName ?? r.Properties.AlarmName;
    if (typeof name !== 'string') throw new Error(`no literal name for ${id} (${r.Type})`);
    return name;
  };
  const resolve = (part: unknown): string => {
    if (typeof part === 'string') return part;
    const { Ref: ref, 'Fn::GetAtt': getAtt } = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    if (ref === 'AWS::Region') return 'REGION';
    if (ref) return nameOf(ref);
    if (getAtt?.[1] === 'Arn') return `arn:${nameOf(getAtt[0])}`;
    if (getAtt) return nameOf(getAtt[0]);
    throw new Error(`cannot resolve ${JSON.stringify(part)}`);
  };
  const [separator, parts] = dashboard.Properties.DashboardBody['Fn::Join'] as [string, unknown[]];
  const raw = parts.map(resolve).join(separator);
  return { name: dashboard.Properties.DashboardName, widgets: JSON.parse(raw).widgets, raw };
}

/** Every line of every graph, metric arrays unpacked: `[namespace, name, dim, value, ..., options]`. */
function linesOf(widgets: Widget[]): Line[] {
  return widgets
    .filter((w) => w.type === 'metric')
    .flatMap((w) =>
      (w.properties.metrics as unknown[][]).map((entry): Line => {
        const last = entry.at(-1);
        const options = (typeof last === 'object' ? last : {}) as Record<string, any>;
        const head = (typeof last === 'object' ? entry.slice(0, -1) : entry) as string[];
        const [namespace, metricName, ...dims] = head;
        const dimensions = Object.fromEntries(dims.flatMap((d, i) => (i % 2 === 0 ? [[d, dims[i + 1]!]] : [])));
        return {
          widget: w.properties.title,
          ...(namespace ? { namespace, metricName } : {}),
          dimensions,
          ...options,
        } as Line;
      }),
    );
}

let synth: Synthesized;
let resources: Record<string, Resource>;
let body: ReturnType<typeof dashboardBody>;
let lines: Line[];

beforeAll(() => {
  // cdk-nag and cfn-lint have their own test (compliance.test.ts); this one reads the template.
  synth = synthesize({ stage: 'dev', bundle: false, nag: false });
  resources = synth.template.toJSON().Resources as Record<string, Resource>;
  body = dashboardBody(synth.template);
  lines = linesOf(body.widgets);
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const graph = (title: string) => {
  const found = body.widgets.find((w) => w.properties.title === title);
  if (!found) throw new Error(`no widget "${title}"`);
  return found;
};
const linesIn = (title: string) => lines.filter((l) => l.widget === title);
const alarmTopicId = () => ofType('AWS::SNS::Topic').find(([, t]) => t.Properties.TopicName === `${PREFIX}-alarms`)![0];

describe('dashboard', () => {
  test('one dashboard per stage, named after it, and its name is an output', () => {
    synth.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(body.name).toBe(`${PREFIX}-operations`);
    const [dashboardId] = ofType('AWS::CloudWatch::Dashboard')[0]!;
    synth.template.hasOutput('DashboardName', { Value: { Ref: dashboardId } });
  });

  test("it carries the app's tags; cfn-lint skips only E3002 on it (its schema does not list a dashboard's Tags yet)", () => {
    const [, dashboard] = ofType('AWS::CloudWatch::Dashboard')[0]! as [string, Resource & { Metadata?: Record<string, any> }];
    expect(dashboard.Properties.Tags).toEqual(
      expect.arrayContaining([
        { Key: 'service', Value: 'project-label-service' },
        { Key: 'stage', Value: 'dev' },
      ]),
    );
    expect(dashboard.Metadata?.['cfn-lint']).toEqual({ config: { ignore_checks: ['E3002'] } });
  });

  test('it opens with a text naming the stage, then the state of every alarm of the stack', () => {
    const [text, alarms] = body.widgets;
    expect(text).toMatchObject({ type: 'text', x: 0, y: 0, width: 24 });
    expect(text!.properties.markdown).toContain(`# ${PREFIX}: operations`);
    expect(text!.properties.markdown).toContain('stage **dev**');
    expect(alarms).toMatchObject({ type: 'alarm', width: 24 });
    const names = ofType('AWS::CloudWatch::Alarm').map(([, a]) => `arn:${a.Properties.AlarmName}`);
    // API 5xx, one per function, stream failures, iterator age, inbound dead letters and age, webhook dead letters,
    // age and failure rate, table throttles, API p99.
    expect(names).toHaveLength(FUNCTIONS.length + 10);
    expect([...alarms!.properties.alarms].sort()).toEqual([...names].sort());
    expect(alarms!.properties.alarms).toContain(`arn:${PREFIX}-api-latency-p99`);
  });

  test('API Gateway: latency p50 and p99, integration latency p99, requests, 4XX and 5XX', () => {
    const api = (metricName: string, stat: string) =>
      expect.objectContaining({ namespace: 'AWS/ApiGateway', metricName, stat, dimensions: { ApiName: PREFIX } });
    expect(linesIn('API latency (ms)')).toEqual([api('Latency', 'p50'), api('Latency', 'p99'), api('IntegrationLatency', 'p99')]);
    expect(linesIn('API latency (ms)').map((l) => l.period)).toEqual([60, 60, 60]);
    // The p99 alarm's threshold is drawn on the latency graph.
    expect(graph('API latency (ms)').properties.annotations.horizontal).toEqual([expect.objectContaining({ value: 1000 })]);
    expect(linesIn('API requests')).toEqual([api('Count', 'Sum')]);
    expect(linesIn('API errors')).toEqual([api('4XXError', 'Sum'), api('5XXError', 'Sum')]);
  });

  test.each([
    ['Lambda errors', 'Errors', 'Sum'],
    ['Lambda throttles', 'Throttles', 'Sum'],
    ['Lambda duration p99 (ms)', 'Duration', 'p99'],
    ['Lambda concurrent executions (max)', 'ConcurrentExecutions', 'Maximum'],
  ])(
    '%s: one line per function (every route, the authorizer, the stream processor, the inbound consumer, the webhook deliverer)',
    (title, metricName, stat) => {
      const shown = linesIn(title);
      expect(shown).toHaveLength(FUNCTIONS.length);
      expect(FUNCTIONS).toHaveLength(routes.length + 4);
      for (const name of FUNCTIONS) {
        expect(shown, name).toContainEqual(
          expect.objectContaining({
            namespace: 'AWS/Lambda',
            metricName,
            stat,
            label: name,
            dimensions: { FunctionName: `${PREFIX}-${name}` },
          }),
        );
      }
    },
  );

  test('the table: consumed read and write capacity (table and indexes), system and user errors', () => {
    const table = { TableName: PREFIX };
    const capacity = linesIn('Table consumed capacity (units)');
    for (const metricName of ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits']) {
      expect(capacity).toContainEqual(expect.objectContaining({ namespace: 'AWS/DynamoDB', metricName, stat: 'Sum', dimensions: table }));
      for (const index of ['GSI1', 'GSI2', 'GSI3'])
        expect(capacity).toContainEqual(
          expect.objectContaining({ metricName, stat: 'Sum', dimensions: { ...table, GlobalSecondaryIndexName: index } }),
        );
    }
    const errors = linesIn('Table errors');
    const systemErrors = errors.filter((l) => l.metricName === 'SystemErrors');
    expect(systemErrors.map((l) => l.dimensions.Operation)).toEqual(
      expect.arrayContaining(['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']),
    );
    expect(systemErrors.every((l) => l.visible === false && l.dimensions.TableName === PREFIX)).toBe(true);
    const sum = errors.find((l) => l.label === 'System errors' && l.expression);
    expect(sum?.expression?.split(' + ').sort()).toEqual(systemErrors.map((l) => (l as { id?: string }).id).sort());
    expect(errors).toContainEqual(expect.objectContaining({ metricName: 'UserErrors', stat: 'Sum', dimensions: {} }));
  });

  test.each(['table', ...INDEXES])(
    'throttled events of the %s: reads and writes, all of them and those of a hot partition (key range), per minute',
    (name) => {
      const dimensions = throttleDimensions(name);
      const throttle = (metricName: string) =>
        expect.objectContaining({ namespace: 'AWS/DynamoDB', metricName, stat: 'Sum', period: 60, dimensions });
      expect(linesIn(`Throttled events: ${name}`)).toEqual([
        throttle('ReadThrottleEvents'),
        throttle('WriteThrottleEvents'),
        throttle('ReadKeyRangeThroughputThrottleEvents'),
        throttle('WriteKeyRangeThroughputThrottleEvents'),
      ]);
    },
  );

  test('the throttle graphs share one row, and the old table-only graph is gone', () => {
    const titles = ['table', ...INDEXES].map((name) => `Throttled events: ${name}`);
    expect(new Set(titles.map((title) => graph(title).y)).size).toBe(1);
    expect(titles.reduce((width, title) => width + graph(title).width, 0)).toBe(24);
    expect(body.widgets.some((w) => w.properties.title === 'Table throttled events')).toBe(false);
  });

  test("the stream processor's iterator age, the inbound queue's depth and age, the depth of every dead-letter queue (stream, inbound, webhooks)", () => {
    expect(linesIn('Stream processor iterator age (ms)')).toEqual([
      expect.objectContaining({
        namespace: 'AWS/Lambda',
        metricName: 'IteratorAge',
        stat: 'Maximum',
        dimensions: { FunctionName: `${PREFIX}-stream-processor` },
      }),
    ]);
    const queue = (metricName: string, queueName: string) =>
      expect.objectContaining({ namespace: 'AWS/SQS', metricName, stat: 'Maximum', dimensions: { QueueName: queueName } });
    expect(linesIn('Inbound queue')).toEqual([
      queue('ApproximateNumberOfMessagesVisible', `${PREFIX}-inbound`),
      queue('ApproximateAgeOfOldestMessage', `${PREFIX}-inbound`),
    ]);
    expect(linesIn('Dead letters (messages)')).toEqual([
      queue('ApproximateNumberOfMessagesVisible', `${PREFIX}-stream-failures`),
      queue('ApproximateNumberOfMessagesVisible', `${PREFIX}-inbound-dead-letters`),
      queue('ApproximateNumberOfMessagesVisible', `${PREFIX}-webhook-dead-letters`),
    ]);
    expect(linesIn('Dead letters (messages)').map((l) => l.label)).toEqual([
      'Stream failures',
      'Inbound dead letters',
      'Webhook dead letters',
    ]);
  });

  test("webhooks: attempts (all, delivered, failed attempts, deliveries exhausted by customers' endpoints, lost ones queued again, parked ones, records retried) and both lanes' depth and age", () => {
    const search = (metricName: string) =>
      `SEARCH('{ProjectLabelService,route,service} MetricName="${metricName}" service="${PREFIX}"', 'Sum', 300)`;
    expect(linesIn('Webhook attempts').map((l) => [l.label, l.expression])).toEqual([
      ['Attempts', `SUM(${search('WebhookAttempts')})`],
      ['Delivered', `SUM(${search('WebhookDeliveries')})`],
      ['Failed attempts', `SUM(${search('WebhookAttemptsFailed')})`],
      ["Deliveries exhausted (customers' endpoints, no page)", `SUM(${search('WebhookDeliveriesFailed')})`],
      ['Lost deliveries queued again (sweeps)', `SUM(${search('WebhookDeliveriesRequeued')})`],
      ['Deliveries parked behind an open breaker', `SUM(${search('WebhookDeliveriesParked')})`],
      ['Attempt records retried', `SUM(${search('WebhookRecordRetries')})`],
    ]);
    const queue = (metricName: string, label: string, lane: string) =>
      expect.objectContaining({
        namespace: 'AWS/SQS',
        metricName,
        stat: 'Maximum',
        label,
        dimensions: { QueueName: `${PREFIX}-webhook-${lane}` },
      });
    expect(linesIn('Webhook queues')).toEqual([
      queue('ApproximateNumberOfMessagesVisible', 'Fresh events due', 'deliveries'),
      queue('ApproximateNumberOfMessagesVisible', 'Retries due', 'retries'),
      queue('ApproximateAgeOfOldestMessage', 'Oldest message age (s)', 'deliveries'),
      queue('ApproximateAgeOfOldestMessage', 'Oldest retry age (s)', 'retries'),
    ]);
    // The ages on the right axis: seconds, not messages.
    expect(linesIn('Webhook queues').slice(2)).toEqual([
      expect.objectContaining({ yAxis: 'right' }),
      expect.objectContaining({ yAxis: 'right' }),
    ]);
  });

  test.each(SERVICE_METRICS)("the service's own metric %s is searched by route, for this stage's service only", (metricName) => {
    const search = `SEARCH('{ProjectLabelService,route,service} MetricName="${metricName}" service="${PREFIX}"', 'Sum', 300)`;
    expect(lines.filter((l) => l.expression?.includes(search)).length, metricName).toBeGreaterThan(0);
  });

  test('requests and answers by route and status class, conflicts and 503s, cascades, events, cold starts', () => {
    const expressions = (title: string) => linesIn(title).map((l) => [l.label, l.expression]);
    const search = (metricName: string) =>
      `SEARCH('{ProjectLabelService,route,service} MetricName="${metricName}" service="${PREFIX}"', 'Sum', 300)`;
    expect(expressions('Answers by status class')).toEqual(['2xx', '3xx', '4xx', '5xx'].map((c) => [c, `SUM(${search(`Status${c}`)})`]));
    expect(expressions('Requests by route')).toEqual([["${PROP('Dim.route')}", search('Requests')]]);
    expect(expressions('4xx by route')).toEqual([["${PROP('Dim.route')}", search('Status4xx')]]);
    expect(expressions('5xx by route')).toEqual([["${PROP('Dim.route')}", search('Status5xx')]]);
    expect(expressions('Conflict retries and 503s')).toEqual([
      ['Conflict retries', `SUM(${search('ConflictRetries')})`],
      ['503 answers', `SUM(${search('Unavailable')})`],
    ]);
    expect(expressions('Authorizer (cache misses)')).toEqual([
      ['Tokens accepted', `SUM(${search('TokensAccepted')})`],
      ['Tokens refused', `SUM(${search('TokensRefused')})`],
      ['Authorizer failures', `SUM(${search('AuthorizerFailures')})`],
    ]);
    expect(expressions('Items removed by delete cascades')).toEqual([['Items removed', `SUM(${search('CascadeItemsRemoved')})`]]);
    expect(expressions('Events')).toEqual([
      ['Published', `SUM(${search('EventsPublished')})`],
      ['Applied', `SUM(${search('EventsApplied')})`],
      ['Dropped', `SUM(${search('EventsDropped')})`],
      ['Dead-lettered', `SUM(${search('EventsDeadLettered')})`],
    ]);
    // Powertools puts the default dimensions (`route`) on ColdStart too: no schema, so it is found either way.
    expect(expressions('Cold starts by function')).toEqual([
      ["${PROP('Dim.function_name')}", `SEARCH('Namespace="ProjectLabelService" MetricName="ColdStart" service="${PREFIX}"', 'Sum', 300)`],
    ]);
  });

  test('within CloudWatch limits: at most 500 metrics, graphs on a 24-column grid without overlap', () => {
    expect(lines.length).toBeLessThanOrEqual(500);
    const cells = new Set<string>();
    for (const w of body.widgets) {
      expect(w.x + w.width, w.properties.title).toBeLessThanOrEqual(24);
      for (let x = w.x; x < w.x + w.width; x++)
        for (let y = w.y; y < w.y + w.height; y++) {
          expect(cells.has(`${x},${y}`), `${w.properties.title} at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });

  test("prod's dashboard is its own: its name, its functions, its service's metrics", () => {
    const prod = synthesize({ stage: 'prod', bundle: false, nag: false });
    const prodBody = dashboardBody(prod.template);
    expect(prodBody.name).toBe('project-label-service-prod-operations');
    expect(prodBody.raw).toContain('service=\\"project-label-service-prod\\"');
    expect(prodBody.raw).not.toContain(PREFIX);
    expect(linesOf(prodBody.widgets)).toContainEqual(
      expect.objectContaining({ metricName: 'IteratorAge', dimensions: { FunctionName: 'project-label-service-prod-stream-processor' } }),
    );
  });
});

describe('alarms', () => {
  test('API p99 latency: above 1000 ms in 3 of 5 one-minute periods of 20 requests or more notifies the alarm topic', () => {
    const api = (metricName: string, stat: string) => ({
      MetricStat: {
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: metricName, Dimensions: [{ Name: 'ApiName', Value: PREFIX }] },
        Period: 60,
        Stat: stat,
      },
      ReturnData: false,
    });
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${PREFIX}-api-latency-p99`,
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests >= 20, p99, 0)', ReturnData: true }),
        Match.objectLike({ Id: 'p99', ...api('Latency', 'p99') }),
        Match.objectLike({ Id: 'requests', ...api('Count', 'Sum') }),
      ]),
      Threshold: 1000,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: alarmTopicId() }],
    });
  });

  test('table throttles: read and write throttle events of the table and of every index, summed per minute, in 3 of 5 minutes', () => {
    expect(INDEXES).toEqual(['GSI1', 'GSI2', 'GSI3']);
    const [, alarm] = ofType('AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.AlarmName === `${PREFIX}-table-throttles`)!;
    expect(alarm.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: alarmTopicId() }],
    });
    expect(alarm.Properties.AlarmDescription).toMatch(/3 of 5 one-minute periods/);
    expect(alarm.Properties.AlarmDescription).toMatch(/SDK retries/);
    type Query = { Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: Record<string, any> };
    const queries = alarm.Properties.Metrics as Query[];
    const metrics = queries.filter((q) => q.MetricStat);
    const expected = ['table', ...INDEXES].flatMap((scope) =>
      ['Read', 'Write'].map((kind) => ({ metricName: `${kind}ThrottleEvents`, dimensions: throttleDimensions(scope) })),
    );
    const resolved = metrics.map((q) => ({
      metricName: q.MetricStat!.Metric.MetricName,
      dimensions: Object.fromEntries(
        (q.MetricStat!.Metric.Dimensions as { Name: string; Value: unknown }[]).map((d) => [
          d.Name,
          typeof d.Value === 'string' ? d.Value : resources[(d.Value as { Ref: string }).Ref]!.Properties.TableName,
        ]),
      ),
    }));
    expect(resolved).toEqual(expect.arrayContaining(expected));
    expect(resolved).toHaveLength(expected.length);
    for (const q of metrics) {
      expect(q.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/DynamoDB' }, Period: 60, Stat: 'Sum' });
      expect(q.ReturnData).toBe(false);
    }
    // The one expression the alarm watches sums every one of them, each filled with 0 (they are sparse).
    const [watched, ...others] = queries.filter((q) => q.Expression);
    expect(others).toEqual([]);
    expect(watched).toMatchObject({ ReturnData: true });
    const ids = [...watched!.Expression!.matchAll(/FILL\((\w+), 0\)/g)].map((m) => m[1]!);
    expect(watched!.Expression).toBe(`SUM([${ids.map((id) => `FILL(${id}, 0)`).join(', ')}])`);
    expect(ids.sort()).toEqual(metrics.map((q) => q.Id).sort());
  });

  test('the alarms that were there stay, and every alarm notifies the alarm topic', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const names = alarms.map((a) => a.AlarmName);
    expect(names).toEqual(
      expect.arrayContaining([
        `${PREFIX}-api-5xx`,
        ...FUNCTIONS.map((name) => `${PREFIX}-${name}-errors`),
        `${PREFIX}-stream-failures`,
        `${PREFIX}-stream-iterator-age`,
        `${PREFIX}-inbound-dead-letters`,
        `${PREFIX}-inbound-age`,
        `${PREFIX}-webhook-dead-letters`,
        `${PREFIX}-webhook-age`,
        `${PREFIX}-webhook-failure-rate`,
        `${PREFIX}-table-throttles`,
      ]),
    );
    const byName = (name: string) => alarms.find((a) => a.AlarmName === `${PREFIX}-${name}`)!;
    expect(byName('stream-iterator-age')).toMatchObject({ MetricName: 'IteratorAge', Statistic: 'Maximum', Threshold: 60_000 });
    expect(byName('inbound-dead-letters')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(byName('stream-failures')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(byName('webhook-dead-letters')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(byName('webhook-age')).toMatchObject({ Threshold: 1800, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(JSON.stringify(byName('webhook-age').Metrics)).toContain('ApproximateAgeOfOldestMessage');
    expect(byName('webhook-failure-rate')).toMatchObject({
      Threshold: 50,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
    });
    for (const alarm of alarms) expect(alarm.AlarmActions, alarm.AlarmName).toEqual([{ Ref: alarmTopicId() }]);
  });
});
