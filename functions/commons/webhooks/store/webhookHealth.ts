import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { str } from '#store/codec';
import { conditionally } from '#store/errors';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';

/**
 * A webhook's health while its endpoint fails, kept off its workspace's partition (the workspace's
 * busiest key): the run of failures lives on an item of its own in the webhook's deliveries partition
 * (`WEBHOOK#<ws>#<id>`, `HEALTH`), written when a run starts and then at most once a minute while it
 * goes on. The webhook item is written only when the endpoint starts failing, recovers (its
 * `failing_since`, which the API shows and the deliverer routes by) or is turned off, in an order that
 * never lets it show a run its health item does not keep.
 */

/** How long a run of failures goes unwritten after its last write: more failures in that time change nothing kept. */
export const HEALTH_QUIET_MS = 60_000;
/** A health item outlives its last write by this long (a webhook deleted while failing leaves nothing behind for good). */
const KEPT_SECONDS = 30 * 24 * 3600;
/** Rounds lost to another writer of the same health item before leaving the run to it (it wrote what this one would). */
const ROUNDS = 3;

interface Run {
  failing_since: string;
  last_failure_at: string;
}

/** What a failure knows of its webhook: who it is, and the run of failures it shows. */
type Shown = { workspace: string; id: string; failing_since?: string; last_failure_at?: string };

/** The run a webhook shows from before its runs were kept on a health item (its own last_failure_at), while still fresh. */
const legacyRun = (w: Shown, freshAfter: string): Run | undefined =>
  w.failing_since !== undefined && w.last_failure_at !== undefined && w.last_failure_at >= freshAfter
    ? { failing_since: w.failing_since, last_failure_at: w.last_failure_at }
    : undefined;

/** The run of failures kept, if any (a health item a success cleared keeps none). */
async function readRun(ws: string, id: string): Promise<Run | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhookHealth(ws, id), ConsistentRead: true }));
  return Item?.failing_since === undefined
    ? undefined
    : { failing_since: str(Item, 'failing_since'), last_failure_at: str(Item, 'last_failure_at') };
}

/**
 * The webhook shows a new run of failures, unless it shows one already (another failure of the same
 * moment got there first: this one writes nothing) or is gone. False when it was not written.
 */
const markFailing = (ws: string, id: string, since: string, freshAfter: string) =>
  conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(ws, id),
        UpdateExpression: 'SET failing_since = :since REMOVE last_failure_at',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(failing_since) OR failing_since < :fresh)',
        ExpressionAttributeValues: { ':since': since, ':fresh': freshAfter },
      }),
    ),
  );

/**
 * Writes the run `run` over what was read (`kept`, the last failure it kept, if any): a writer that got
 * there first wins, and this one reads again. A new run clears the breaker of the last (webhookBreaker.ts);
 * one going on keeps its probe.
 */
function keepRun(ws: string, id: string, run: Run, kept: Run | undefined, isNew: boolean) {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookHealth(ws, id),
        UpdateExpression: `SET #type = :type, failing_since = :since, last_failure_at = :last, #ttl = :ttl${isNew ? ' REMOVE probe_at, probe_due, probes' : ''}`,
        ConditionExpression: kept ? 'last_failure_at = :seen' : 'attribute_not_exists(last_failure_at)',
        ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':type': ItemType.webhookHealth,
          ':since': run.failing_since,
          ':last': run.last_failure_at,
          ':ttl': Math.floor(Date.parse(run.last_failure_at) / 1000) + KEPT_SECONDS,
          ...(kept ? { ':seen': kept.last_failure_at } : {}),
        },
      }),
    ),
  );
}

export const webhookHealth = {
  /**
   * A failed attempt at `now` of `webhook` (as the attempt read it): the time it has been failing since
   * (the start of this run of failures, which begins anew when the last failure kept was before
   * `freshAfter`, failures that far apart being separate outages, or when the webhook shows no run:
   * turned on again, or a success ended the run meanwhile). A webhook failing before its runs were kept
   * here goes on with the run it shows.
   */
  async failing(webhook: Shown, now: string, freshAfter: string): Promise<string> {
    const { workspace: ws, id } = webhook;
    // Whether the webhook shows a run: as read by the attempt, and, once another writer won a round, yes.
    let shown = webhook.failing_since !== undefined;
    for (let round = 0; round < ROUNDS; round++, shown = true) {
      const kept = await readRun(ws, id);
      // An attempt that read the webhook showing no run joins one another failure of this moment began (this
      // last minute) rather than start its own over it.
      const joins = shown || (kept !== undefined && Date.parse(now) - Date.parse(kept.failing_since) < HEALTH_QUIET_MS);
      const run = joins && kept && kept.last_failure_at >= freshAfter ? kept : shown && !kept ? legacyRun(webhook, freshAfter) : undefined;
      if (run && Date.parse(now) - Date.parse(run.last_failure_at) < HEALTH_QUIET_MS) return run.failing_since;
      // A new run: the webhook says so first (once among failures of the same moment). Should the health item
      // not follow, the next failure finds no run and starts one: the webhook shows no run its health does not keep.
      // (A webhook showing no run gets one, unless one began this last minute: another failure of this moment's.)
      if (!run) await markFailing(ws, id, now, shown ? freshAfter : new Date(Date.parse(now) - HEALTH_QUIET_MS).toISOString());
      const next = { failing_since: run?.failing_since ?? now, last_failure_at: now };
      if (await keepRun(ws, id, next, kept, !run)) return next.failing_since;
    }
    // Others kept writing this webhook's failures meanwhile: the run is theirs; this one read it last.
    return (await readRun(ws, id))?.failing_since ?? now;
  },

  /**
   * A success at `at` while the webhook was failing: no longer failing. The health item first, then the webhook
   * (which keeps the time: its `Webhook Recovered` event's): should the second write not follow, the webhook
   * still shows the run and the next success ends it.
   */
  async healthy(ws: string, id: string, at: string): Promise<void> {
    await conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookHealth(ws, id),
          // The breaker closes with the run (webhookBreaker.ts): a probe still out finds nothing to hold.
          UpdateExpression: 'REMOVE failing_since, last_failure_at, probe_at, probe_due, probes',
          ConditionExpression: 'attribute_exists(failing_since)',
        }),
      ),
    );
    await conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhook(ws, id),
          UpdateExpression: 'SET recovered_at = :at REMOVE failing_since, last_failure_at',
          ConditionExpression: 'attribute_exists(failing_since)',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
  },

  /**
   * Turns it off with the reason, if it is still active and has shown failing since `cutoff` or before (a
   * success since, and a new run, shows a later time; concurrent starts of one run differ by moments).
   */
  deactivate: (ws: string, id: string, cutoff: string, reason: string, now: string) =>
    conditionally(
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhook(ws, id),
          UpdateExpression: 'SET active = :false, deactivated_reason = :reason, updated_at = :now',
          ConditionExpression: 'active = :true AND failing_since <= :cutoff',
          ExpressionAttributeValues: { ':false': false, ':true': true, ':reason': reason, ':cutoff': cutoff, ':now': now },
        }),
      ),
    ),
};
