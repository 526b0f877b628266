import { describe, expect, test } from 'vitest';
import { keys, type Key } from '#store/keys';

/**
 * Every key prefix the store queries ends at a separator: for ids where one is a prefix of another
 * (t1 and t10, workspace acme and acme-corp, label ids 1 and 10, project ids p1 and p10), no key built
 * for the longer id starts with a prefix built for the shorter one, and no two keys coincide. Removing
 * any separator from keys.ts fails this file.
 */
const PAIRS = {
  task: ['t1', 't10'],
  ws: ['acme', 'acme-corp'],
  slug: ['bug', 'bug-2'],
  project: ['p1', 'p10'],
  label: [1, 10],
  subject: ['alice', 'alice2'],
} as const;

/** Every key (PK and SK joined) the store writes, for one choice of ids. */
function allKeys(ids: { task: string; ws: string; slug: string; project: string; label: number; subject: string }): string[] {
  const { task, ws, slug, project, label, subject } = ids;
  const built: Key[] = [
    keys.project(ws, slug),
    keys.label(ws, slug),
    keys.labelTitleGuard(ws, slug),
    keys.labelTitleGuardOwn(ws, slug),
    keys.labelIdCounter(ws),
    keys.labelCountOwn(ws),
    keys.labelIdCounterOwn(ws),
    keys.copyNameClaim(ws, slug),
    keys.taskLink(project, task, label),
    keys.taskVersion(project, task),
    keys.labelUse(project, label),
    keys.labelLink(ws, label, project, task),
    keys.projectLabel(project, label),
    keys.labelProject(ws, label, project),
    keys.projectDeletion(project),
    keys.labelDeletion(ws, label),
    keys.detachNote(project, task),
    keys.thingState(project, 'task', subject),
    keys.thingState(project, 'member', subject),
    keys.thingState(project, 'sprint', subject),
    keys.streamReceipt(task),
    keys.token(task),
    keys.idempotencyKey(ws, task),
  ];
  return built.map((k) => `${k.PK}\u0000${k.SK}`);
}

const short = { task: 't1', ws: 'acme', slug: 'bug', project: 'p1', label: 1, subject: 'alice' };
const long = { task: 't10', ws: 'acme-corp', slug: 'bug-2', project: 'p10', label: 10, subject: 'alice2' };

type Ids = typeof short;

/**
 * Each prefix query of the store: its partition and sort-key prefix for the short ids, and the ids it
 * is about (an item of the same query with any of those ids longer must fall outside it).
 */
const PREFIX_QUERIES: [string, (ids: Ids) => { partition: string; sortPrefix: string }, (keyof Ids)[]][] = [
  ['a task’s items', (i) => ({ partition: keys.projectCollection(i.project), sortPrefix: keys.taskSkPrefix(i.task) }), ['project', 'task']],
  [
    'a task’s links',
    (i) => ({ partition: keys.projectCollection(i.project), sortPrefix: keys.taskLinkSkPrefix(i.task) }),
    ['project', 'task'],
  ],
  [
    'a label’s links in one project',
    (i) => ({ partition: keys.labelCollection(i.ws, i.label), sortPrefix: keys.labelLinkProjectPrefix(i.project) }),
    ['ws', 'label', 'project'],
  ],
  ['a workspace’s projects', (i) => ({ partition: keys.workspace(i.ws), sortPrefix: keys.projectSkPrefix }), ['ws']],
  ['a workspace’s labels', (i) => ({ partition: keys.workspace(i.ws), sortPrefix: keys.labelSkPrefix }), ['ws']],
  ['a project’s label uses', (i) => ({ partition: keys.projectCollection(i.project), sortPrefix: keys.labelUseSkPrefix }), ['project']],
  ['a project’s label set', (i) => ({ partition: keys.projectCollection(i.project), sortPrefix: keys.projectLabelSkPrefix }), ['project']],
];

describe('key boundaries', () => {
  test('the ids of each pair are prefixes of each other, so the checks below bite', () => {
    for (const [a, b] of Object.values(PAIRS)) expect(String(b).startsWith(String(a))).toBe(true);
  });

  test('no key of the longer ids equals a key of the shorter ones', () => {
    const a = new Set(allKeys(short));
    for (const k of allKeys(long)) expect(a.has(k), k).toBe(false);
  });

  test.each(PREFIX_QUERIES)('%s, queried for the shorter ids, reads no item of the longer ones', (_name, query, about) => {
    const q = query(short);
    for (const field of about) {
      // One id longer at a time: every way a neighbour could fall into the range.
      const ids = { ...short, [field]: long[field] };
      for (const key of allKeys(ids)) {
        const [pk, sk] = key.split('\u0000') as [string, string];
        const own = allKeys(short).includes(key);
        if (!own)
          expect(pk === q.partition && sk.startsWith(q.sortPrefix), `${field}: ${key} in ${q.partition} ${q.sortPrefix}`).toBe(false);
      }
    }
  });

  test('every key has the documented shape, each id between separators (the table layout in keys.ts)', () => {
    const p = 'p1';
    expect({
      workspace: keys.workspace('acme'),
      project: keys.project('acme', 'web'),
      projectStatusIndex: keys.projectStatusIndex('acme', 'archived', 'web'),
      projectNameIndex: keys.projectNameIndex('acme', 'web'),
      label: keys.label('acme', 'bug'),
      labelTitleGuard: keys.labelTitleGuard('acme', 'bug'),
      labelTitleGuardOwn: keys.labelTitleGuardOwn('acme', 'bug'),
      labelIdCounter: keys.labelIdCounter('acme'),
      labelCountOwn: keys.labelCountOwn('acme'),
      labelIdCounterOwn: keys.labelIdCounterOwn('acme'),
      copyNameClaim: keys.copyNameClaim('acme', 'web copy'),
      taskLink: keys.taskLink(p, 't1', 5),
      taskVersion: keys.taskVersion(p, 't1'),
      taskSkPrefix: keys.taskSkPrefix('t1'),
      taskLinkSkPrefix: keys.taskLinkSkPrefix('t1'),
      projectCollection: keys.projectCollection(p),
      labelUse: keys.labelUse(p, 5),
      labelLink: keys.labelLink('acme', 5, p, 't1'),
      labelCollection: keys.labelCollection('acme', 5),
      labelLinkProjectPrefix: keys.labelLinkProjectPrefix(p),
      projectLabel: keys.projectLabel(p, 5),
      labelProject: keys.labelProject('acme', 5, p),
      projectDeletion: keys.projectDeletion(p),
      labelDeletion: keys.labelDeletion('acme', 5),
      detachNote: keys.detachNote(p, 'n1'),
      thingStates: [keys.thingState(p, 'task', 't1'), keys.thingState(p, 'member', 'alice'), keys.thingState(p, 'sprint', 's1')],
      streamReceipt: keys.streamReceipt('e1'),
      token: keys.token('tok1'),
      idempotencyKey: keys.idempotencyKey('acme', 'h1'),
      prefixes: [keys.projectSkPrefix, keys.labelSkPrefix, keys.labelUseSkPrefix, keys.projectLabelSkPrefix, keys.partitionPrefixes.token],
    }).toEqual({
      workspace: 'WS#acme',
      project: { PK: 'WS#acme', SK: 'PROJECT#web' },
      projectStatusIndex: { GSI1PK: 'WS#acme#STATUS#archived', GSI1SK: 'PROJECT#web' },
      projectNameIndex: { GSI2PK: 'WS#acme#NAME', GSI2SK: 'web' },
      label: { PK: 'WS#acme', SK: 'LABEL#bug' },
      labelTitleGuard: { PK: 'WS#acme', SK: 'LABELTITLE#bug' },
      labelTitleGuardOwn: { PK: 'LABEL#acme#TITLE#bug', SK: 'GUARD' },
      labelIdCounter: { PK: 'WS#acme', SK: 'COUNTER#LABEL_ID' },
      labelCountOwn: { PK: 'LABEL#acme#TALLY', SK: 'LABELCOUNT' },
      labelIdCounterOwn: { PK: 'LABEL#acme#TALLY', SK: 'COUNTER#LABEL_ID' },
      copyNameClaim: { PK: 'WS#acme', SK: 'COPYNAME#web copy' },
      taskLink: { PK: 'PROJECT#p1', SK: 'TASK#t1#LABEL#5' },
      taskVersion: { PK: 'PROJECT#p1', SK: 'TASK#t1#VERSION' },
      taskSkPrefix: 'TASK#t1#',
      taskLinkSkPrefix: 'TASK#t1#LABEL#',
      projectCollection: 'PROJECT#p1',
      labelUse: { PK: 'PROJECT#p1', SK: 'USE#5' },
      labelLink: { PK: 'LABEL#acme#5', SK: 'PROJECT#p1#TASK#t1' },
      labelCollection: 'LABEL#acme#5',
      labelLinkProjectPrefix: 'PROJECT#p1#TASK#',
      projectLabel: { PK: 'PROJECT#p1', SK: 'LABELSET#5' },
      labelProject: { PK: 'LABEL#acme#5', SK: 'PROJECT#p1#SET' },
      projectDeletion: { PK: 'PROJECT#p1', SK: 'DELETION' },
      labelDeletion: { PK: 'LABEL#acme#5', SK: 'DELETION' },
      detachNote: { PK: 'PROJECT#p1', SK: 'DETACHED#n1' },
      thingStates: [
        { PK: 'PROJECT#p1', SK: 'TASKSTATE#t1' },
        { PK: 'PROJECT#p1', SK: 'MEMBER#alice' },
        { PK: 'PROJECT#p1', SK: 'SPRINTSTATE#s1' },
      ],
      streamReceipt: { PK: 'RECEIPT#e1', SK: 'RECEIPT' },
      token: { PK: 'TOKEN#tok1', SK: 'TOKEN' },
      idempotencyKey: { PK: 'IDEMPOTENCY#acme#h1', SK: 'KEY' },
      prefixes: ['PROJECT#', 'LABEL#', 'USE#', 'LABELSET#', 'TOKEN#'],
    });
  });

  test('partitions of one workspace, project or label are never a prefix-sharing neighbour’s', () => {
    expect(keys.projectStatusPartition('acme', 'archived')).not.toBe(keys.projectStatusPartition('acme-corp', 'archived'));
    expect(keys.projectNamePartition('acme')).not.toBe(keys.projectNamePartition('acme-corp'));
    expect(keys.labelCollection('acme', 1)).not.toBe(keys.labelCollection('acme', 10));
    expect(keys.labelCollection('acme-corp', 1)).not.toBe(keys.labelCollection('acme', 1));
  });
});
