import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db } from '#store/client';
import { conditionally, isConditionFailure } from '#store/errors';
import { keys } from '#store/keys';
import { tableName } from '#store/table';

/**
 * A failing endpoint's circuit breaker, kept on its health item (webhookHealth.ts: a run of failures
 * starts and ends there, and so does the breaker's state): `probe_at`, when the one probing attempt may
 * go next (while a probe is out, the end of its hold), `probe_due`, the time the probe out was armed for
 * (its message, delivered again, takes it up again), and `probes`, how many have failed in this run.
 * Each write is conditioned on what it was decided from, so a probe is taken once however many
 * messages ask, and a chain of probes is armed once however many waiting deliveries notice it missing.
 */

/** The breaker as a conditional write found it: no run (closed), or a run and its probe. */
export type Breaker = { open: false } | { open: true; failing_since: string; last_failure_at: string; probe_at?: string; probes: number };

const readItem = async (ws: string, id: string) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhookHealth(ws, id), ConsistentRead: true }))).Item;

function breakerOf(item: Record<string, unknown> | undefined): Breaker {
  if (typeof item?.failing_since !== 'string') return { open: false };
  return {
    open: true,
    failing_since: item.failing_since,
    last_failure_at: typeof item.last_failure_at === 'string' ? item.last_failure_at : item.failing_since,
    ...(typeof item.probe_at === 'string' ? { probe_at: item.probe_at } : {}),
    probes: typeof item.probes === 'number' ? item.probes : 0,
  };
}

/** The health item as a failed condition returned it (or read again, where the database returns nothing). */
async function found(error: unknown, ws: string, id: string): Promise<Breaker> {
  if (!isConditionFailure(error)) throw error;
  const returned = (error as { Item?: Record<string, AttributeValue> }).Item;
  return breakerOf(returned ? unmarshall(returned) : await readItem(ws, id));
}

export const webhookBreaker = {
  /** The breaker as it is now (a consistent read). */
  read: async (ws: string, id: string): Promise<Breaker> => breakerOf(await readItem(ws, id)),

  /**
   * Arms the breaker's first probe at `at` if the run of failures began at `openedBy` or before, failed
   * last at `freshAfter` or since (a run long quiet is over: its next attempt goes), and no probe is
   * armed (or the one armed was lost: due before `lostBefore`). 'armed' when this call armed it (the
   * caller queues its message), else the breaker as found: open, or closed (no such run, or not yet).
   */
  async arm(
    ws: string,
    id: string,
    at: string,
    run: { openedBy: string; freshAfter: string; lostBefore: string },
  ): Promise<'armed' | Breaker> {
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          UpdateExpression: 'SET probe_at = :at, probes = if_not_exists(probes, :zero) REMOVE probe_due',
          ConditionExpression:
            'failing_since <= :opened AND last_failure_at >= :fresh AND (attribute_not_exists(probe_at) OR probe_at < :lost)',
          ExpressionAttributeValues: { ':at': at, ':zero': 0, ':opened': run.openedBy, ':fresh': run.freshAfter, ':lost': run.lostBefore },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'armed';
    } catch (error) {
      const breaker = await found(error, ws, id);
      // A run too young to open the breaker, or long quiet, is to the caller a closed one.
      const open = breaker.open && breaker.failing_since <= run.openedBy && breaker.last_failure_at >= run.freshAfter;
      return open ? breaker : { open: false };
    }
  },

  /**
   * Takes the probe armed at `due` (holding it until `until`), or takes it again for the same message
   * delivered again once its hold lapsed (an attempt that failed before its end): the breaker as it was; when the probe is
   * not there to take, the breaker as found (closed, or armed for another time).
   */
  async take(ws: string, id: string, due: string, now: string, until: string): Promise<{ taken: boolean; breaker: Breaker }> {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          UpdateExpression: 'SET probe_at = :until, probe_due = :due',
          // Again only once the first hold lapsed: two copies of one message at once make one probe.
          ConditionExpression: 'attribute_exists(failing_since) AND (probe_at = :due OR (probe_due = :due AND probe_at < :now))',
          ExpressionAttributeValues: { ':until': until, ':due': due, ':now': now },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { taken: true, breaker: breakerOf(Attributes) };
    } catch (error) {
      return { taken: false, breaker: await found(error, ws, id) };
    }
  },

  /**
   * After a probe held until `held` failed: the next probe at `at`, the `probes`-th failed. Also when a
   * new run cleared the probe meanwhile (its chain goes on); false when the run ended, or another probe
   * took over.
   */
  again: (ws: string, id: string, held: string, at: string, probes: number) =>
    conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          // The probe ended: its message, should it come again, takes nothing.
          UpdateExpression: 'SET probe_at = :at, probes = :probes REMOVE probe_due',
          ConditionExpression: 'attribute_exists(failing_since) AND (probe_at = :held OR attribute_not_exists(probe_at))',
          ExpressionAttributeValues: { ':at': at, ':probes': probes, ':held': held },
        }),
      ),
    ),

  /** Ends the chain of the probe held until `held` (nothing waits): the next delivery to wait arms a new one. */
  disarm: (ws: string, id: string, held: string) =>
    conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          UpdateExpression: 'REMOVE probe_at, probe_due',
          ConditionExpression: 'probe_at = :held',
          ExpressionAttributeValues: { ':held': held },
        }),
      ),
    ),
};
