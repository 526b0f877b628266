import { BatchGetCommand, GetCommand, UpdateCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db } from './db';
import { Conflict, NotFound, ServiceUnavailable } from './errors';
import { ItemType, keys } from './keys';
import { removeLabelLinks } from './links';
import { queryAll } from './paging';
import { freeSuffix, normalizeName, slugify, slugWithSuffix } from './slug';
import { takenSlugs } from './slugClaims';
import { tableName } from './table';
import { cancellationReasons, isConditionFailure, markDeleting, transact, tx } from './writes';

export const MAX_LABEL_TITLE = 50;

export interface LabelRecord {
  id: number;
  slug: string;
  title: string;
  color: string;
  created_at: string;
  updated_at: string;
  /** Set while a delete is under way (or was interrupted and awaits a retried DELETE). */
  deleting?: boolean;
}

/** What the API returns for a label. */
export interface LabelView {
  id: number;
  slug: string;
  title: string;
  color: string;
}

export function labelView(l: LabelRecord): LabelView {
  return { id: l.id, slug: l.slug, title: l.title, color: l.color };
}

/** Case-insensitive by title, then exact title, then id: a stable, human order. */
export function byTitle(a: LabelRecord, b: LabelRecord): number {
  const an = normalizeName(a.title);
  const bn = normalizeName(b.title);
  return an < bn ? -1 : an > bn ? 1 : a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id;
}

function toRecord(item: Record<string, unknown>): LabelRecord {
  return {
    id: item.id as number,
    slug: item.slug as string,
    title: item.title as string,
    color: item.color as string,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
    ...(item.deleting === true ? { deleting: true } : {}),
  };
}

function labelItem(ws: string, l: LabelRecord) {
  return { ...keys.label(ws, l.slug), type: ItemType.label, workspace: ws, title_norm: normalizeName(l.title), ...l };
}

function titleGuardItem(ws: string, title: string, label: { id: number; slug: string }) {
  return { ...keys.labelTitleGuard(ws, normalizeName(title)), type: ItemType.labelTitleGuard, workspace: ws, label_id: label.id, label_slug: label.slug };
}

const titleTaken = (title: string) => new Conflict(`A label titled "${title}" already exists in this workspace.`);
const notFound = (slug: string) => new NotFound(`No label "${slug}" in this workspace.`);

export async function listLabels(ws: string): Promise<LabelRecord[]> {
  const items = await queryAll(keys.workspace(ws), keys.labelSkPrefix);
  return items.map(toRecord).sort(byTitle);
}

export async function getLabel(ws: string, slug: string): Promise<LabelRecord> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.label(ws, slug), ConsistentRead: true }));
  if (!Item) throw notFound(slug);
  return toRecord(Item);
}

/** Label records by slug (for resolving links), skipping any whose id no longer matches. */
export async function getLabelsBySlug(ws: string, wanted: { slug: string; id: number }[]): Promise<Map<number, LabelRecord>> {
  const found = new Map<number, LabelRecord>();
  const unique = [...new Map(wanted.map((w) => [w.slug, w])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((w) => keys.label(ws, w.slug));
    for (let attempt = 0; request?.length; attempt++) {
      if (attempt >= 8) throw new ServiceUnavailable();
      const out: BatchGetCommandOutput = await db.send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: request, ConsistentRead: true } } }));
      for (const item of out.Responses?.[tableName()] ?? []) found.set(item.id as number, toRecord(item));
      request = out.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
  const wantedIds = new Set(wanted.map((w) => w.id));
  for (const id of found.keys()) if (!wantedIds.has(id)) found.delete(id);
  return found;
}

async function nextLabelId(ws: string): Promise<number> {
  const { Attributes } = await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.labelIdCounter(ws),
      UpdateExpression: 'ADD next_id :one SET #type = :type, workspace = :ws',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':one': 1, ':type': ItemType.labelIdCounter, ':ws': ws },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Attributes!.next_id as number;
}

const MAX_SLUG_ROUNDS = 10;

/**
 * A new label: its id from the workspace's atomic counter (ids are never reused; a create that
 * fails, e.g. on a taken title, leaves a gap), its slug the
 * first free one derived from the title, its title claimed through a guard item so that two
 * labels can never share a title case-insensitively, even when created at the same moment.
 */
export async function createLabel(ws: string, input: { title: string; color: string }): Promise<LabelRecord> {
  const id = await nextLabelId(ws);
  const base = slugify(input.title, 'label');
  const now = new Date().toISOString();
  let slug = base;
  for (let round = 0; round < MAX_SLUG_ROUNDS; round++) {
    const label: LabelRecord = { id, slug, title: input.title, color: input.color, created_at: now, updated_at: now };
    try {
      await transact([
        tx.put(labelItem(ws, label), { condition: 'attribute_not_exists(PK)' }),
        tx.put(titleGuardItem(ws, label.title, label), { condition: 'attribute_not_exists(PK)' }),
      ]);
      return label;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      if (reasons[1] === 'ConditionalCheckFailed') throw titleTaken(input.title);
      if (reasons[0] !== 'ConditionalCheckFailed') throw error;
      slug = slugWithSuffix(base, freeSuffix(base, await takenSlugs(ws, 'label', base), round));
    }
  }
  throw new ServiceUnavailable('Too many concurrent creates of labels with this title; retry.');
}

/** Title and/or color; the slug and id never change. A rename moves the title guard atomically. */
export async function updateLabel(ws: string, slug: string, patch: { title?: string; color?: string }): Promise<LabelRecord> {
  if (patch.title === undefined) return recolorLabel(ws, slug, patch.color);
  const current = await getLabel(ws, slug);
  const next: LabelRecord = { ...current, ...patch, updated_at: new Date().toISOString() };
  const renamed = normalizeName(next.title) !== normalizeName(current.title);
  const updateLabelItem = tx.update(keys.label(ws, slug), 'SET title = :title, title_norm = :norm, color = :color, updated_at = :now', {
    condition: 'id = :id AND title_norm = :oldNorm AND attribute_not_exists(deleting)',
    values: {
      ':title': next.title,
      ':norm': normalizeName(next.title),
      ':color': next.color,
      ':now': next.updated_at,
      ':id': current.id,
      ':oldNorm': normalizeName(current.title),
    },
  });
  const items = [updateLabelItem];
  if (renamed) {
    items.push(
      tx.delete(keys.labelTitleGuard(ws, normalizeName(current.title)), { condition: 'label_id = :id', values: { ':id': current.id } }),
      tx.put(titleGuardItem(ws, next.title, next), { condition: 'attribute_not_exists(PK)' }),
    );
  }
  try {
    await transact(items);
    return next;
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    if (reasons[2] === 'ConditionalCheckFailed') throw titleTaken(next.title);
    if (reasons[0] === 'ConditionalCheckFailed') {
      // Changed or deleted since we read it: report what is true now.
      await getLabel(ws, slug);
      throw new Conflict('The label was changed by another request; retry.');
    }
    throw error;
  }
}

/**
 * An update that leaves the title alone touches only the label item: one conditional UpdateItem,
 * no read before it and no transaction (which would bill every write twice).
 */
async function recolorLabel(ws: string, slug: string, color: string | undefined): Promise<LabelRecord> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.label(ws, slug),
        UpdateExpression: color === undefined ? 'SET updated_at = :now' : 'SET color = :color, updated_at = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': new Date().toISOString(), ...(color === undefined ? {} : { ':color': color }) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toRecord(Attributes!);
  } catch (error) {
    if (isConditionFailure(error)) throw notFound(slug);
    throw error;
  }
}

/**
 * Deletes a label in three resumable steps: mark it `deleting` (from then on no attach can
 * succeed), remove it from every task of every project, then delete the label and its title
 * guard in one transaction. If a step fails the request answers 503 and the label stays, marked:
 * a retried DELETE finishes the job. No link ever points to a label that is gone.
 */
export async function deleteLabel(ws: string, slug: string): Promise<void> {
  const marked = await markDeleting(keys.label(ws, slug));
  if (!marked) throw notFound(slug);
  const label = toRecord(marked);
  await removeLabelLinks(ws, label.id);
  // A label under deletion cannot be renamed (see updateLabel), so its title guard is the marked one.
  try {
    await transact([
      tx.delete(keys.label(ws, slug), { condition: 'id = :id', values: { ':id': label.id } }),
      tx.delete(keys.labelTitleGuard(ws, normalizeName(label.title)), { condition: 'label_id = :id', values: { ':id': label.id } }),
    ]);
  } catch (error) {
    // A concurrent DELETE of the same label finished first.
    if (cancellationReasons(error)?.includes('ConditionalCheckFailed')) throw notFound(slug);
    throw error;
  }
}
