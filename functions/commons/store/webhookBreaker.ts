import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db } from './client';
import { conditionally, isConditionFailure } from './errors';
import { keys } from './keys';
import { tableName } from './table';

/**
 * A failing endpoint's circuit breaker, kept on its health item (webhookHealth.ts: a run of failures
 * starts and ends there, and so does the breaker's state): `probe_at`, when the one probing attempt may
 * go next (while a probe is out, the end of its hold), and `probes`, how many have failed in this run.
 * Each write is conditioned on what it was decided from, so a probe is taken once however many
 * messages ask, and a chain of probes is armed once however many waiting deliveries notice it missing.
 */

/** The breaker as a conditional write found it: no run (closed), or a run and its probe. */
export type Breaker = { open: false } | { open: true; failing_since: string; probe_at?: string; probes: number };

/** The health item as a failed condition returned it (or read again, where the database returns nothing). */
async function found(error: unknown, ws: string, id: string): Promise<Breaker> {
  if (!isConditionFailure(error)) throw error;
  const returned = (error as { Item?: Record<string, AttributeValue> }).Item;
  const item = returned
    ? unmarshall(returned)
    : (await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhookHealth(ws, id), ConsistentRead: true }))).Item;
  if (typeof item?.failing_since !== 'string') return { open: false };
  return {
    open: true,
    failing_since: item.failing_since,
    ...(typeof item.probe_at === 'string' ? { probe_at: item.probe_at } : {}),
    probes: typeof item.probes === 'number' ? item.probes : 0,
  };
}

export const webhookBreaker = {
  /**
   * Arms the breaker's first probe at `at` if the run of failures began at `openedBy` or before and no
   * probe is armed (or the one armed was lost: due before `lostBefore`). 'armed' when this call armed
   * it (the caller queues its message), else the breaker as found: open, or closed (no such run).
   */
  async arm(ws: string, id: string, at: string, openedBy: string, lostBefore: string): Promise<'armed' | Breaker> {
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          UpdateExpression: 'SET probe_at = :at, probes = if_not_exists(probes, :zero)',
          ConditionExpression: 'failing_since <= :opened AND (attribute_not_exists(probe_at) OR probe_at < :lost)',
          ExpressionAttributeValues: { ':at': at, ':zero': 0, ':opened': openedBy, ':lost': lostBefore },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'armed';
    } catch (error) {
      const breaker = await found(error, ws, id);
      // A run too young to open the breaker is, to the caller, a closed one.
      return breaker.open && breaker.failing_since <= openedBy ? breaker : { open: false };
    }
  },

  /**
   * Takes the probe armed at `due` (holding it until `until`): the breaker as it was, or, when the
   * probe is not there to take, the breaker as found (closed, or armed for another time).
   */
  async take(ws: string, id: string, due: string, until: string): Promise<{ taken: boolean; breaker: Breaker }> {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          UpdateExpression: 'SET probe_at = :until',
          ConditionExpression: 'attribute_exists(failing_since) AND probe_at = :due',
          ExpressionAttributeValues: { ':until': until, ':due': due },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const item = Attributes ?? {};
      return {
        taken: true,
        breaker: { open: true, failing_since: String(item.failing_since), probe_at: due, probes: Number(item.probes ?? 0) },
      };
    } catch (error) {
      return { taken: false, breaker: await found(error, ws, id) };
    }
  },

  /** After a probe held until `held` failed: the next probe at `at`, the `probes`-th failed. False when the run ended meanwhile. */
  again: (ws: string, id: string, held: string, at: string, probes: number) =>
    conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          UpdateExpression: 'SET probe_at = :at, probes = :probes',
          ConditionExpression: 'attribute_exists(failing_since) AND probe_at = :held',
          ExpressionAttributeValues: { ':at': at, ':probes': probes, ':held': held },
        }),
      ),
    ),
};
