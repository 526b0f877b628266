import { BatchGetCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { rekeyTable } from '#checker/rekey';
import { getProject } from '#domain/projects';
import { titleKey } from '#domain/text';
import { db } from '#store/client';
import { applyLinkDeltas } from '#store/counters';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';
import { workspaceClient } from '#support/api';
import { startLocalApi } from '#support/local-api';
import { localStack } from '#support/stack';
import { runTool } from '#support/tools';

/** The keys an earlier version derived from user text: NFC, trimmed, lower case. */
const earlierKey = (text: string) => text.normalize('NFC').trim().toLowerCase();

test('npm run rekey brings a table written under the earlier folding up to date, and names what it cannot', async () => {
  const c = await workspaceClient('rekey');
  const { slug } = await c.createProject('Straße Nord');
  const label = await c.createLabel('Größe');
  // As the earlier version stored them: name index and title guard under the lower-cased form,
  // and two labels that only the new folding makes one title.
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.project(c.ws, slug),
      UpdateExpression: 'SET GSI2SK = :k',
      ExpressionAttributeValues: { ':k': earlierKey('Straße Nord') },
    }),
  );
  const relabel = async (l: { id: number; slug: string; title: string }, title: string) => {
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.labelTitleGuardOwn(c.ws, titleKey(l.title)) }));
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.label(c.ws, l.slug),
        UpdateExpression: 'SET title_norm = :k, title = :t',
        ExpressionAttributeValues: { ':k': earlierKey(title), ':t': title },
      }),
    );
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.labelTitleGuardOwn(c.ws, earlierKey(title)),
          type: 'label_title_own',
          workspace: c.ws,
          label_id: l.id,
          label_slug: l.slug,
        },
      }),
    );
  };
  await relabel(label, 'Größe');
  await c.createLabel('Bug');
  const twinB = await c.createLabel('Beetle');
  await relabel(twinB, 'ＢＵＧ');
  expect((await checkTable([c.ws])).violations.length).toBeGreaterThan(0);

  expect(await rekeyTable({ dryRun: true, workspaces: [c.ws] })).toEqual({
    projects: 1,
    labels: 2,
    receipts: 0,
    webhooks: 0,
    secrets: 0,
    tasks: 0,
    states: 0,
    // The two labels changed above, whose copies (store/copies.ts) are as they were.
    copies: 2,
    projectCopies: 0,
    titleGuards: 0,
    labelTallies: 0,
    conflicts: [],
  });
  const result = await rekeyTable({ workspaces: [c.ws] });
  expect(result).toEqual({
    projects: 1,
    labels: 1,
    receipts: 0,
    webhooks: 0,
    secrets: 0,
    tasks: 0,
    states: 0,
    // The twin's: Größe's copies were written with its new key, as its item was.
    copies: 1,
    projectCopies: 0,
    titleGuards: 0,
    labelTallies: 0,
    conflicts: [expect.stringContaining(`${c.ws}/${twinB.slug}`)],
  });
  // Everything but the twin titles is consistent now; find-by-name folds again.
  const left = (await checkTable([c.ws])).violations;
  expect(left).toHaveLength(4);
  for (const v of left)
    expect(
      v.includes(`/${twinB.slug}`) || v.includes(`${twinB.slug} and`) || v.includes(`${keys.labelTitleGuardOwn(c.ws, 'ｂｕｇ').PK} /`),
      v,
    ).toBe(true);
  expect((await c.get('/projects', { name: 'STRASSE' })).body.data.map((p: { slug: string }) => p.slug)).toEqual([slug]);
});

test("npm run rekey moves stream receipts out of their project's collection, so a record delivered again still finds its receipt", async () => {
  const c = await workspaceClient('rekey-receipts');
  const { slug } = await c.createProject('Receipts');
  const project = await getProject(c.ws, slug);
  // Receipts as the earlier version kept them: in the project's collection, under APPLIED#<event id>.
  // The second one's record came again after the new version was deployed: its receipt exists in both places.
  const receipt = (eventId: string) => ({
    type: ItemType.streamReceipt,
    workspace: c.ws,
    project_id: project.id,
    ttl: Math.floor(Date.now() / 1000) + 3600,
    eventId,
  });
  const legacy = (eventId: string) => ({ PK: keys.projectCollection(project.id), SK: `APPLIED#${eventId}` });
  for (const eventId of ['e-moved', 'e-twice']) {
    const { eventId: _id, ...item } = receipt(eventId);
    await db.send(new PutCommand({ TableName: tableName(), Item: { ...legacy(eventId), ...item } }));
  }
  const { eventId: _twice, ...twice } = receipt('e-twice');
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...keys.streamReceipt('e-twice'), ...twice } }));
  expect((await checkTable([c.ws])).violations).toEqual([
    expect.stringMatching(/^stream receipt PROJECT#.* \/ APPLIED#e-moved .*npm run rekey moves it$/),
    expect.stringMatching(/^stream receipt PROJECT#.* \/ APPLIED#e-twice .*npm run rekey moves it$/),
  ]);

  const twoReceipts = {
    projects: 0,
    labels: 0,
    receipts: 2,
    webhooks: 0,
    secrets: 0,
    tasks: 0,
    states: 0,
    copies: 0,
    projectCopies: 0,
    titleGuards: 0,
    labelTallies: 0,
    conflicts: [],
  };
  expect(await rekeyTable({ dryRun: true, workspaces: [c.ws] })).toEqual(twoReceipts);
  expect(await rekeyTable({ workspaces: [c.ws] })).toEqual(twoReceipts);
  const wanted = [legacy('e-moved'), legacy('e-twice'), keys.streamReceipt('e-moved'), keys.streamReceipt('e-twice')];
  const found = await db.send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: wanted, ConsistentRead: true } } }));
  const items = found.Responses?.[tableName()] ?? [];
  expect(items.map((i) => `${i.PK} ${i.SK}`).sort()).toEqual(['RECEIPT#e-moved RECEIPT', 'RECEIPT#e-twice RECEIPT']);
  expect(items.find((i) => i.PK === 'RECEIPT#e-moved')).toMatchObject({
    type: ItemType.streamReceipt,
    workspace: c.ws,
    project_id: project.id,
  });
  expect((await checkTable([c.ws])).violations).toEqual([]);
  expect(await rekeyTable({ workspaces: [c.ws] })).toEqual({
    projects: 0,
    labels: 0,
    receipts: 0,
    webhooks: 0,
    secrets: 0,
    tasks: 0,
    states: 0,
    copies: 0,
    projectCopies: 0,
    titleGuards: 0,
    labelTallies: 0,
    conflicts: [],
  });
  // The record of a moved receipt, delivered again: it finds its receipt and changes nothing; a new record counts.
  const label = await c.createLabel('Receipts');
  const ref = { id: project.id, slug: project.slug };
  expect(await applyLinkDeltas(c.ws, ref, label.id, [{ eventId: 'e-moved', delta: 1 }], true)).toBe(0);
  expect(await applyLinkDeltas(c.ws, ref, label.id, [{ eventId: 'e-new', delta: 1 }], true)).toBe(1);
});

test("npm run rekey moves webhooks, send slots and their count out of the workspace's collection: the webhook is found, counted and delivered to where it now is", async () => {
  const c = await workspaceClient('rekey-hooks');
  const made = await c.post('/webhooks', { url: 'https://hooks.example.com/moved', events: ['Label Created'] });
  expect(made.status, made.text).toBe(201);
  const id = made.body.data.id as string;
  // As an earlier version kept them: in the workspace's collection.
  const moved = await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.webhook(c.ws, id), ReturnValues: 'ALL_OLD' }));
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.webhookCount(c.ws) }));
  const legacy = { PK: keys.legacyWebhookPartition(c.ws) };
  await db.send(new PutCommand({ TableName: tableName(), Item: { ...moved.Attributes, ...legacy } }));
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...legacy, SK: 'WEBHOOKCOUNT', type: ItemType.webhookCount, workspace: c.ws, count: 1 },
    }),
  );
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...legacy, SK: 'SENDSLOT#0', type: ItemType.sendSlot, workspace: c.ws, locked_until: 0 },
    }),
  );
  expect((await c.get(`/webhooks/${id}`)).status).toBe(404);
  expect((await checkTable([c.ws])).violations.filter((v) => v.includes('npm run rekey moves it'))).toHaveLength(3);
  expect(await rekeyTable({ workspaces: [c.ws], dryRun: true })).toMatchObject({ webhooks: 1, conflicts: [] });
  expect(await rekeyTable({ workspaces: [c.ws] })).toMatchObject({ webhooks: 1, conflicts: [] });
  expect((await checkTable([c.ws])).violations).toEqual([]);
  const found = await c.get(`/webhooks/${id}`);
  expect(found.status, found.text).toBe(200);
  expect(found.body.data).toMatchObject({ id, url: 'https://hooks.example.com/moved', events: ['Label Created'] });
  // Counted afresh where it now is: its delete counts it out, and the workspace can hold new ones.
  expect((await c.del(`/webhooks/${id}`)).status).toBe(200);
  expect((await c.get('/webhooks')).body.data).toEqual([]);
  expect((await checkTable([c.ws])).violations).toEqual([]);
  // A second run finds nothing left to move.
  expect(await rekeyTable({ workspaces: [c.ws] })).toMatchObject({ webhooks: 0, conflicts: [] });
});

test('npm run rekey says what it rekeyed, and with --dry-run what it would (its flag read the right way round)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pls-rekey-'));
  const api = await startLocalApi({ sharing: localStack().dynamodbPort, env: { DATA_DIR: dataDir } });
  try {
    const env = { DATA_DIR: dataDir, ...api.cliEnv };
    const dry = await runTool('bin/rekey.ts', ['--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /^would rekey 0 projects, 0 labels and \d+ stream receipts; would move \d+ webhooks to the webhooks room's partitions; would seal the secrets of 0 webhooks; would move \d+ tasks and \d+ task, member and sprint states to their shards; would copy \d+ labels to their copies; would copy \d+ projects to theirs; would move \d+ title guards; would move the label counts of \d+ workspaces$/m,
    );
    const real = await runTool('bin/rekey.ts', [], env);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(
      /^rekeyed 0 projects, 0 labels and \d+ stream receipts; moved \d+ webhooks to the webhooks room's partitions; sealed the secrets of 0 webhooks; moved \d+ tasks and \d+ task, member and sprint states to their shards; copied \d+ labels to their copies; copied \d+ projects to theirs; moved \d+ title guards; moved the label counts of \d+ workspaces$/m,
    );
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
