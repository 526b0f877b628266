import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { repoRoot } from '#lib/paths';
import { feedingShards, MIX_MESSAGES, MIX_REQUESTS, modelMix } from '#lib/capacity/mix';
import { modelRow, saturation, spreadOf } from '#lib/capacity/model';
import { patternOf } from '#lib/capacity/patterns';
import { monthlyCost, PRICES, tiered } from '#lib/capacity/prices';
import type { Call, Touch } from '#lib/capacity/recorder';
import type { Measured } from '#lib/capacity/scenarios';
import { modelledRate } from '#bench/saturation';
import { textAtLimits } from '#lib/capacity/worst';
import { charCount, jsonByteLength } from '#domain/text';
import {
  MAX_DESCRIPTION,
  MAX_DESCRIPTION_BYTES,
  MAX_LABEL_TITLE,
  MAX_LABEL_TITLE_BYTES,
  MAX_PROJECT_NAME,
  MAX_PROJECT_NAME_BYTES,
} from '#domain/limits';
import { modelledMix } from '#bench/saturationMix';
import { ACTIVITY_SHARDS, DELIVERY_SHARDS, DUE_SHARDS, keys, LABEL_LINK_SHARDS, TASK_SHARDS, WORKSPACE_COPIES } from '#store/keys';
import { MARK_SHARDS, PROJECT_ACTIVITY_SHARDS, TASK_ACTIVITY_SHARDS } from '#store/activityKeys';
import { itemShardsOf, pastShardZero, SHARDED_KEYS, shardFamilyOf, shardsOf } from '#store/shardedKeys';

/**
 * The capacity model's arithmetic on calls made up here (the measured calls are the integration test's:
 * test/integration/capacity.test.ts): where a key saturates, which item split for heat cannot lift,
 * what a mix puts on each partition, the price tiers. And docs/capacity.md has a row for every route.
 */
const write = (key: string, units: number, item?: string, index?: string): Touch => ({
  table: 't',
  key,
  capacity: 'write',
  units,
  ...(item ? { item } : {}),
  ...(index ? { index } : {}),
});
const read = (key: string, units: number, item?: string): Touch => ({
  table: 't',
  key,
  capacity: 'read',
  units,
  ...(item ? { item } : {}),
});
const call = (operation: string, ...touches: Touch[]): Call => ({ operation, items: touches.length, touches });
const PROJECT = 'PROJECT#0f8fad5b-d9cb-469f-a165-70867728950e';
/** One of the project's task homes (shards 1 to TASK_SHARDS: a task's items, a detach note); PROJECT is its shard 0. */
const HOME = `${PROJECT}#SHARD#3`;
const measured = (row: string, request: Call[], stream: Call[] = [], events = 0): Measured => ({
  row,
  scenario: '',
  consumer: false,
  request,
  stream,
  records: stream.length,
  events,
});

describe('one route', () => {
  test('a key saturates at the partition limit over the units it draws, reads and writes apart', () => {
    expect(saturation({ read: 1.5, write: 0 })).toBe(2_000);
    expect(saturation({ read: 0, write: 4 })).toBe(250);
    expect(saturation({ read: 30, write: 2 })).toBe(100);
    expect(saturation({ read: 0, write: 0 })).toBe(Number.POSITIVE_INFINITY);
  });

  test('request and stream work add up per key; the busiest key and the busiest item are named', () => {
    const row = modelRow(
      measured(
        'POST /projects-labels',
        [
          call('UpdateItem', write('WS#capacity-model', 1, 'COUNTER#LABEL_ID')),
          call('TransactWriteItems', write('WS#capacity-model', 2, 'LABEL#bug'), write('WS#capacity-model', 2, 'LABELTITLE#bug')),
        ],
        [call('UpdateItem', write(HOME, 2, 'DETACHED#5a3c1e8e'), read('WS#capacity-model', 1, 'LABEL#bug'))],
      ),
    );
    expect(row.request).toEqual({ read: 0, write: 5 });
    expect(row.stream).toEqual({ read: 1, write: 2 });
    // A detach note is in its task's shard of the project: its 2 units spread over the project's TASK_SHARDS.
    expect(row.kinds).toEqual({ workspace: 200, project: 500 * TASK_SHARDS, counter: 1_000 });
    expect(row.first).toEqual({ partition: 'WS#<ws>', rate: 200, bound: 'write' });
    // Three items at 500 req/s: ties go to the first name.
    expect(row.item).toEqual({ name: 'PROJECT#<project> DETACHED#<note>', rate: 500 });
    expect(row.operations).toBe('1 UpdateItem + 1 TransactWriteItems');
  });

  test('at saturation, stream work on an item every record of a key shares (a use counter) is done once per batch: left out', () => {
    const attach = measured(
      'POST /projects-labels/{slug}/attach',
      [call('TransactWriteItems', write(HOME, 2, 'TASK#task-1#VERSION'), write(HOME, 2, 'TASK#task-1#LABEL#3'))],
      [
        call(
          'TransactWriteItems',
          write('RECEIPT#5a3c1e8e', 2, 'RECEIPT'),
          write(PROJECT, 2, 'USE#3'),
          write('WS#capacity-model', 2, 'PROJECT#launch'),
        ),
      ],
    );
    const row = modelRow(attach);
    expect(row.stream).toEqual({ read: 0, write: 6 });
    // The request's 4 units on the task's shard of the project (spread over TASK_SHARDS); the use counter and the project's
    // item are the batch's; the receipt a key of its own.
    expect(row.first).toEqual({ partition: 'PROJECT#<project>', rate: 250 * TASK_SHARDS, bound: 'write' });
    expect(row.kinds).toEqual({ project: 250 * TASK_SHARDS, task: 500 });
  });

  test('keys of their own per request never gather load; a key the model does not know is an error', () => {
    const keyed = measured('POST /projects', [
      call('PutItem', write('IDEMPOTENCY#capacity-model#q1w2e3', 1, 'KEY')),
      call('PutItem', write('WS#capacity-model', 3, 'PROJECT#launch')),
    ]);
    expect(modelRow(keyed).kinds).toEqual({ workspace: 1_000 / 3 });
    expect(() => modelRow(measured('GET /x', [call('GetItem', read('ELSEWHERE#1', 1, 'X'))]))).toThrow(/knows no kind of key ELSEWHERE#1/);
  });

  test('keys are named by what their values stand for; upper-case parts stay', () => {
    expect(patternOf('WS#capacity-model')).toBe('WS#<ws>');
    expect(patternOf('LABEL#capacity-model#12')).toBe('LABEL#<ws>#<label>');
    expect(patternOf('TASK#task-1#LABEL#3')).toBe('TASK#<task>#LABEL#<label>');
    expect(patternOf('COUNTER#LABEL_ID')).toBe('COUNTER#LABEL_ID');
    expect(patternOf('WS#capacity-model#STATUS#in_progress')).toBe('WS#<ws>#STATUS#<status>');
    expect(patternOf('WEBHOOK#capacity-model#wh_1')).toBe('WEBHOOK#<ws>#<webhook>');
  });
});

describe('the mix', () => {
  const all = [...MIX_REQUESTS, ...MIX_MESSAGES].map(([row]) => measured(row, []));
  const withAttach = (stream: Call[]) => [
    ...all.filter((m) => m.row !== 'POST /projects-labels/{slug}/attach'),
    measured(
      'POST /projects-labels/{slug}/attach',
      [
        call(
          'TransactWriteItems',
          write(HOME, 6, 'TASK#task-1#VERSION'),
          write('WS#capacity-model', 1, 'PROJECT#launch'),
          write(PROJECT, 1, 'LABELSET#3'),
        ),
      ],
      stream,
      1,
    ),
    measured('webhook deliverer', [call('PutItem', write('WEBHOOK#capacity-model#wh_1', 2, 'DELIVERY#1'))]),
  ];

  test('each row weighs its share; events become webhook deliveries; the first key to saturate comes first', () => {
    const mix = modelMix(withAttach([call('UpdateItem', write(HOME, 4, 'DETACHED#5a3c1e8e'), write(PROJECT, 4, 'USE#3'))]));
    // attach: 8 per 100 requests, 10 units on the project's task shards at saturation (its version's and its note's),
    // spread over TASK_SHARDS; 1 unit on its label set, and the use counter's 4 are the batch's, in shard 0: 4 batches
    // a second of each of the TASK_SHARDS stream shards the attaches' writes feed, off its 1,000. The homes are never
    // shard 0 (shardedKeys.ts): the key is as busy as the busier, here shard 0, which takes none of their units.
    // 0.08 deliveries of 2 units each, over the webhook's 8 shards of deliveries (6,250 on one partition); the
    // project's item in the workspace, 1 unit.
    const batchWork = 4 * 4 * TASK_SHARDS;
    expect(mix.partitions.map((p) => [p.name, p.rate])).toEqual([
      ['PROJECT#<project>', (1_000 - batchWork) / 0.08],
      ['WS#<ws>', 12_500],
      ['WEBHOOK#<ws>#<webhook>', 6_250 * 8],
    ]);
    expect(mix.partitions[0]!.perSecond).toEqual({ read: 0, write: batchWork });
    expect(mix.partitions[0]!.load.write).toBeCloseTo(0.08);
    // The cost counts everything, the batch's work too.
    expect(mix.perRequest.write).toBeCloseTo(0.08 * 16 + 0.08 * 2);
    expect(mix.perRequest.deliveries).toBeCloseTo(0.08);
    // The project's own item is one item every attach hits, and so is its label set's; a task's version and a note are
    // one per task or record.
    expect(mix.partitions[1]!.item).toEqual({ name: 'PROJECT#<project>', rate: 12_500 });
    expect(mix.partitions[0]!.item).toEqual({ name: 'LABELSET#<label>', rate: 12_500 });
  });

  test("the hot project's share: its own key and its own item take that share of the load; the workspace's partition all of it", () => {
    const stream = [call('UpdateItem', write(HOME, 4, 'DETACHED#5a3c1e8e'), write(PROJECT, 4, 'USE#3'))];
    const half = modelMix(withAttach(stream), { hotProjectShare: 0.5 });
    expect(half.hotProjectShare).toBe(0.5);
    const rate = (name: string) => half.partitions.find((p) => p.name === name)!.rate;
    // Half of the attaches' unit on the hot project's shard 0 (the busier of its shard 0 and its homes); the batch's
    // units a second are its own whatever the share.
    expect(rate('PROJECT#<project>')).toBe((1_000 - 4 * 4 * TASK_SHARDS) / 0.04);
    // The workspace holds every project's item: the partition takes all of it, the hot project's item half.
    expect(rate('WS#<ws>')).toBe(12_500);
    expect(half.partitions.find((p) => p.name === 'WS#<ws>')!.item).toEqual({ name: 'PROJECT#<project>', rate: 25_000 });
    expect(modelMix(withAttach(stream)).hotProjectShare).toBe(1);
  });

  test('once-per-batch work is done once per batch of each stream shard feeding it: only keys whose records the processor acts on', () => {
    const stream = [call('UpdateItem', write(PROJECT, 4, 'USE#3'))];
    const attachesWriting = (extra: Touch) =>
      withAttach(stream).map((m) =>
        m.row === 'POST /projects-labels/{slug}/attach' ? { ...m, request: [...m.request, call('PutItem', extra)] } : m,
      );
    const projectWork = (rows: Measured[]) => modelMix(rows).partitions.find((p) => p.name === 'PROJECT#<project>')!.perSecond;
    // The attaches write a project's task shard: TASK_SHARDS stream shards feed the use counter, 4 batches a second each.
    const fed = { read: 0, write: 4 * 4 * TASK_SHARDS };
    expect(projectWork(withAttach(stream))).toEqual(fed);
    // The history's shards and the due index's are sharded, but feed the processor nothing: they add no stream shard.
    expect(projectWork(attachesWriting(write(keys.activity('capacity-model', 1, 'AT#x').PK, 1, 'AT#x')))).toEqual(fed);
    expect(projectWork(attachesWriting(write(keys.dueShard('msg_1'), 1, 'D', 'GSI3')))).toEqual(fed);
    expect(SHARDED_KEYS.filter((k) => k.feedsProcessor).map((k) => k.name)).toEqual(['PROJECT#<project>']);
    // A key the processor acts on, in 8 shards: the row feeds it from 8 stream shards; the registry's, from TASK_SHARDS.
    const taskShards = (key: string) => (key.startsWith('PROJECT#') ? 8 : 1);
    const [attach] = attachesWriting(write(HOME, 1, 'TASK#t#VERSION')).filter((m) => m.row === 'POST /projects-labels/{slug}/attach');
    expect(feedingShards(attach!, taskShards)).toBe(8);
    expect(feedingShards(attach!)).toBe(TASK_SHARDS);
    expect(feedingShards({ request: [call('PutItem', write('WS#capacity-model', 1, 'PROJECT#launch'))] })).toBe(1);
    // Only the table's writes: a read or an index entry is no record.
    expect(
      feedingShards({ request: [call('GetItem', read(PROJECT, 1, 'X')), call('PutItem', write('DUE#1', 1, 'D', 'GSI3'))] }, () => 8),
    ).toBe(1);
  });

  test('a sharded key spreads its load over the shards the registry gives it, and only a key of the registry', () => {
    const entry = (seq: number) => write(keys.activity('capacity-model', seq, 'AT#x').PK, 2, `AT#${seq}`);
    const rows = withAttach([]).filter((m) => m.row !== 'POST /projects');
    const mix = modelMix([
      ...rows,
      measured('POST /projects', [call('PutItem', entry(1)), call('PutItem', write(keys.dueShard('msg_1'), 1, 'D', 'GSI3'))]),
    ]);
    const rate = (name: string) => mix.partitions.find((p) => p.name === name)!.rate;
    // 1 per 100 requests, 2 units, over ACTIVITY_SHARDS shards; 1 unit over DUE_SHARDS.
    expect(rate('ACTIVITY#<ws>#SHARD#<shard>')).toBeCloseTo(1_000 / ((0.01 * 2) / ACTIVITY_SHARDS));
    expect(rate('GSI3 DUE#<due>')).toBeCloseTo(1_000 / (0.01 / DUE_SHARDS));
    // A deleted project's or label's mark is in every shard (store/tombstones.ts): an attach checks the one its write goes
    // to, so a home's or a label shard's takes its share; a project's first partition is none of the homes, and its own
    // mark is its alone.
    expect([itemShardsOf(HOME, 'GONE'), pastShardZero(HOME, 'GONE')]).toEqual([TASK_SHARDS, true]);
    expect([itemShardsOf(PROJECT, 'GONE'), pastShardZero(PROJECT, 'GONE')]).toEqual([1, false]);
    expect([itemShardsOf(PROJECT, 'USE#3'), itemShardsOf(HOME, 'USE#3')]).toEqual([1, 1]);
    expect(itemShardsOf(keys.labelTombstone('capacity-model', 3, 2).PK, 'GONE')).toBe(LABEL_LINK_SHARDS);
    // Every key the registry names is spelled so by keys.ts; a key that only looks like one is not sharded.
    expect(shardsOf(keys.activityMark('capacity-model', 'evt-1').PK)).toBe(MARK_SHARDS);
    expect(shardsOf(keys.activity('capacity-model', 7, 'AT#x').PK)).toBe(ACTIVITY_SHARDS);
    // Every shard of a copy, its shard 0 (the partition of before) among them.
    for (const pk of keys.projectActivityPartitions('capacity-model', 'p1')) expect(shardsOf(pk)).toBe(PROJECT_ACTIVITY_SHARDS);
    for (const pk of keys.taskActivityPartitions('capacity-model', 't1')) expect(shardsOf(pk)).toBe(TASK_ACTIVITY_SHARDS);
    expect(Array.from({ length: PROJECT_ACTIVITY_SHARDS }, (_, n) => keys.projectActivity('capacity-model', 'p1', n, 'AT#x').PK)).toEqual(
      keys.projectActivityPartitions('capacity-model', 'p1'),
    );
    expect(shardsOf(keys.dueShard('msg_1'), 'GSI3')).toBe(DUE_SHARDS);
    expect(shardsOf(keys.dueShard('msg_1'))).toBe(1);
    expect(shardsOf('ACTIVITY#capacity-model#TASK#SHARD#1')).toBe(1);
    expect(shardsOf('ACTIVITY#capacity-model#PROJECTID#p1#SHARD#x')).toBe(1);
    expect(SHARDED_KEYS.map((k) => k.name)).toEqual([
      'ACTIVITY#<ws>#SHARD#<shard>',
      'ACTIVITY#<ws>#MARKS#<shard>',
      'ACTIVITY#<ws>#PROJECTID#<project>',
      'ACTIVITY#<ws>#TASK#<task>',
      'WEBHOOK#<ws>#<webhook>',
      'LABEL#<ws>#<label>',
      'PROJECT#<project>',
      'WS#<ws>#COPY#<copy>',
      'GSI3 DUE#<due>',
    ]);
    // A label's copies: one in each copy partition, the workspace's own partition none of them.
    expect(Array.from({ length: WORKSPACE_COPIES }, (_, n) => shardsOf(keys.labelCopy('capacity-model', 'bug', n).PK))).toEqual(
      Array(WORKSPACE_COPIES).fill(WORKSPACE_COPIES),
    );
    expect(shardsOf(keys.label('capacity-model', 'bug').PK)).toBe(1);
    expect(patternOf(keys.labelCopy('capacity-model', 'bug', 3).PK)).toBe('WS#<ws>#COPY#<copy>');
    // A project's collection: every shard, shard 0 the partition of before (its use counters and label set there).
    const projectShards = keys.projectShards('p1');
    for (const pk of projectShards) expect(shardsOf(pk)).toBe(TASK_SHARDS);
    expect(projectShards[0]).toBe(keys.labelUse('p1', 7).PK);
    expect(keys.taskLink('p1', 't1', 7, 5).PK).toBe(projectShards[5]);
    expect(new Set(projectShards).size).toBe(TASK_SHARDS + 1);
    expect(shardsOf('PROJECT#p1#SHARD#x')).toBe(1);
    // A webhook's deliveries: every shard, shard 0 (the partition of before, its health's too) among them; its health's key is one of them.
    for (const pk of keys.webhookDeliveryShards('capacity-model', 'wh_1')) expect(shardsOf(pk)).toBe(DELIVERY_SHARDS);
    expect(keys.webhookDeliveryShards('capacity-model', 'wh_1')[0]).toBe(keys.webhookHealth('capacity-model', 'wh_1').PK);
    expect(shardsOf('WEBHOOK#capacity-model#wh_1#SHARD#x')).toBe(1);
    // A label's collection: every shard, shard 0 the partition of before; a link's label side by its shard, its set membership in 0.
    const labelShards = keys.labelCollectionShards('capacity-model', 7);
    for (const pk of labelShards) expect(shardsOf(pk)).toBe(LABEL_LINK_SHARDS);
    expect(labelShards[0]).toBe(keys.labelProject('capacity-model', 7, 'p1').PK);
    expect(keys.labelLink('capacity-model', 7, 'p1', 't1', 3).PK).toBe(labelShards[3]);
    expect(new Set(labelShards).size).toBe(LABEL_LINK_SHARDS);
    expect(shardsOf('LABEL#capacity-model#bug')).toBe(1);
  });

  test("what a sharded key keeps in its shard 0 weighs on it whole: a label's set memberships, a webhook's health", () => {
    const label = keys.labelCollectionShards('capacity-model', 7);
    const link = keys.labelLink('capacity-model', 7, 'p1', 't1', 5);
    const member = keys.labelProject('capacity-model', 7, 'p1');
    const health = keys.webhookHealth('capacity-model', 'wh_1');
    expect(spreadOf(write(link.PK, 2, link.SK))).toBe(1 / LABEL_LINK_SHARDS);
    expect(spreadOf(write(member.PK, 2, member.SK))).toBe(1);
    expect(spreadOf(write(label[0]!, 2, 'DELETION'))).toBe(1);
    expect(spreadOf(write(health.PK, 1, health.SK))).toBe(1);
    expect(spreadOf(write(keys.webhookDeliveries('capacity-model', 'wh_1', 2), 1, 'DELIVERY#msg_1'))).toBe(1 / DELIVERY_SHARDS);
    // A Query of a shard names no item: its load is the shard's share, like any read of every shard; unless its range
    // is one the key keeps in shard 0 (a project's use counters and label set).
    expect(spreadOf(read(label[0]!, 1))).toBe(1 / LABEL_LINK_SHARDS);
    expect(spreadOf({ ...read(keys.projectCollection('p1'), 1), range: keys.labelUseSkPrefix })).toBe(1);
    expect(spreadOf({ ...read(keys.projectCollection('p1'), 1), range: keys.projectLabelSkPrefix })).toBe(1);
    expect(spreadOf({ ...read(keys.projectShard('p1', 3), 1), range: keys.taskSkPrefix('t1') })).toBe(1 / TASK_SHARDS);
  });

  test("a request's draws on every shard of one value are summed and spread: a read of each shard weighs as one read of one partition", () => {
    const shards = keys.projectActivityPartitions('capacity-model', 'p1');
    expect(new Set(shards.map((key) => shardFamilyOf(key))).size).toBe(1);
    expect(shardFamilyOf(keys.projectActivityPartitions('capacity-model', 'p2')[0]!)).not.toBe(shardFamilyOf(shards[0]!));
    const history = measured(
      'GET /activities',
      shards.map((key) => call('Query', read(key, 3))),
    );
    // One row: each request reads 3 units of every shard, so each shard takes 3 units a request (not 3/8).
    const row = modelRow(history);
    expect(row.first).toMatchObject({ partition: 'ACTIVITY#<ws>#PROJECTID#<project>', bound: 'read' });
    expect(row.first.rate).toBeCloseTo(saturation({ read: 3, write: 0 }));
    // An entry written to one shard a request: the route's requests spread over all of them.
    const writes = modelRow(measured('PUT /projects/{slug}', [call('TransactWriteItems', write(shards[3]!, 2, 'AT#x'))]));
    expect(writes.first.rate).toBeCloseTo(saturation({ read: 0, write: 2 / PROJECT_ACTIVITY_SHARDS }));
  });

  test('a row the mix names but nothing measured is an error, not a zero', () => {
    expect(() => modelMix(withAttach([]).filter((m) => m.row !== 'GET /task-labels'))).toThrow(/GET \/task-labels/);
  });
});
test('price tiers: each part of the month at its own price', () => {
  expect(tiered(400e6, PRICES.apiGateway)).toBeCloseTo(333 * 3.5 + 67 * 2.8);
  expect(tiered(1e6, PRICES.apiGateway)).toBeCloseTo(3.5);
  const mix = modelMix([...MIX_REQUESTS, ...MIX_MESSAGES, ['webhook deliverer', 0] as const].map(([row]) => measured(row, [])));
  const cost = monthlyCost(mix, 1_000);
  expect(cost.requests).toBe(2_592_000_000);
  expect(cost.dynamodb).toBe(0);
  expect(cost.total).toBeCloseTo(cost.apiGateway + cost.lambda + cost.messaging);
});

test('docs/capacity.md has a row for every route, method and path first, with the rate it saturates at', () => {
  const page = readFileSync(join(repoRoot, 'docs', 'capacity.md'), 'utf8');
  for (const r of routes) {
    expect(page).toContain(`\n| ${r.method} ${r.path} |`);
    // What the saturation bench (and anyone checking the model) reads of the row.
    expect(modelledRate(`${r.method} ${r.path}`, page)).toBeGreaterThan(0);
  }
  expect(() => modelledRate('GET /nowhere', page)).toThrow(/no row for GET \/nowhere/);
});

test('docs/operations.md quotes the capacity model as docs/capacity.md has it (the numbers, not guesses)', () => {
  const page = readFileSync(join(repoRoot, 'docs', 'capacity.md'), 'utf8');
  const operations = readFileSync(join(repoRoot, 'docs', 'operations.md'), 'utf8');
  const mix = modelledMix(page);
  const partition = (name: string) =>
    // Its row of the partitions table: read and write units per request, the stream's units a second, then its rate.
    new RegExp(
      `^\\| \`${name.replace(/[#<>]/g, (c) => `\\${c}`)}\` \\| [\\d.]+ \\| [\\d.]+ \\| [\\d,-]+ \\| \\*\\*([\\d,]+)\\*\\* \\|`,
      'm',
    ).exec(page)?.[1];
  const said = (n: number | string | undefined) => `**${typeof n === 'number' ? n.toLocaleString('en-US') : n}`;
  expect(operations).toContain(`(\`${mix.key}\`) saturates first, at ${said(mix.rate)} requests a second**`);
  expect(operations).toContain(`(\`PROJECT#<project>\`) at ${said(partition('PROJECT#<project>'))}**`);
  expect(operations).toContain(`label creates at ${said(modelledRate('POST /projects-labels', page))} a second**`);
  expect(operations).toContain(`attaches at ${said(modelledRate('POST /projects-labels/{slug}/attach', page))} a second**`);
});

test('the routes at the limits are measured with texts at their bounds: neither bound passed, one of them reached', () => {
  for (const [chars, bytes, start] of [
    [MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES, ''],
    [MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES, 'Limits 001 '],
    [MAX_LABEL_TITLE, MAX_LABEL_TITLE_BYTES, 'L001 '],
  ] as const) {
    const text = textAtLimits(chars, bytes, start);
    expect(text.startsWith(start)).toBe(true);
    expect(charCount(text)).toBeLessThanOrEqual(chars);
    expect(jsonByteLength(text)).toBeLessThanOrEqual(bytes);
    // One bound reached: every character used, or within a cluster's bytes of the byte bound (no cluster or letter more fits).
    expect(charCount(text) === chars || jsonByteLength(text) > bytes - 16).toBe(true);
  }
});
