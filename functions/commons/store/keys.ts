/**
 * The only module that knows how keys are spelled. Every other file asks here.
 *
 * Item collections:
 *   WS#<workspace>            project items, label items (and, from versions before, title guards, the label count
 *                             and id counter, until moved: labelGuardLayout.ts, labelTally.ts)
 *   WS#<workspace>#COPY#<n>   a copy of each label and project item, in each of WORKSPACE_COPIES partitions (copies.ts)
 *   PROJECT#<projectId>       a project's per-label use counters, label set, its deletion job while its cascade drains,
 *     [#SHARD#<n>]            and its tasks' links, versions, states and detach notes, spread by task (taskKeys.ts)
 *   LABEL#<workspace>#<id>    a label's label-side links (one per task carrying it; spread over LABEL_LINK_SHARDS
 *                             shards by task: labelLinkLayout.ts), its label-set memberships and its deletion job;
 *                             once deleted, a mark in each shard (GONE, tombstones.ts) until it expires
 *   LABEL#<workspace>#TITLE#<t> a title's guard (labelGuards.ts)
 *   LABEL#<workspace>#TALLY   the workspace's label count (LABELCOUNT) and label id counter (labelTally.ts)
 *   STATS#<workspace>#<slug>  what the stream has counted for the project of that slug since its counters left the
 *                             project item (projectStats.ts); STATS# / LAYOUT: since when
 *   TOKEN#<tokenId>           an API token
 *   RECEIPT#<eventId>         a stream record applied to the counters, expires (a partition per record: docs/capacity.md)
 *   IDEMPOTENCY#<workspace>#<h> one Idempotency-Key of one owner in one workspace (h hashes both), expires
 *   HOOKS#<workspace>         the workspace's webhooks (WEBHOOK#<id>, each with its sealed secrets), the slots
 *                             of its outbound calls on request (SENDSLOT#<n>, leased) and their count (WEBHOOKCOUNT)
 *   WEBHOOK#<workspace>#<id>  a webhook's deliveries (newest last in key order), each expiring after 30 days,
 *                             each delivery's payload and attempts apart (PAYLOAD#<id>, ATTEMPT#<id>#...: the log
 *                             and a recovery read small items), its health while it fails (HEALTH: its run of
 *                             failures, its breaker), and the lease of a recovery under way (RECOVERY)
 *   ACTIVITY#...             the history (activityKeys.ts)
 *   LOAD#<workspace>          what the workspace's requests drew on its partitions, a second an item (S#<second>):
 *                             the workspace limits' counts (workspaceLoads.ts), expires
 * Index GSI3 (the sweeper's): DUE#<n> (DUE_SHARDS of them), a delivery's shard, sorted by next_attempt_at.
 * The webhooks room's prefixes (HOOKS#, WEBHOOK#) are reached by no project, label or history function
 * (lib/tableAccess.ts); `npm run rekey` moves what earlier versions kept in WS#. LABELCOUNT: workspaceCounts.ts.
 * Project data is keyed by the project's immutable internal id, never by its slug, so a new project
 * that reuses a deleted project's slug starts empty; its history alone is the slug's (ACTIVITY#...#PROJECT#<slug>),
 * so a deleted project's trail stays readable by its slug until it expires.
 */
import { activityKeys } from './activityKeys';
import { taskKeys } from './taskKeys';
import { shardOf } from './shards';

export { ItemType } from './itemTypes';

export { ACTIVITY_SHARDS } from './activityKeys';
export { TASK_SHARDS } from './taskKeys';

export type Key = { PK: string; SK: string };

const WS = 'WS#';
const PROJECT = 'PROJECT#';
const LABEL = 'LABEL#';
const TITLE = 'LABELTITLE#';
const OWN_TITLE = 'TITLE#';
const TALLY = 'TALLY';
const TASK = 'TASK#';
const USE = 'USE#';
const LABELSET = 'LABELSET#';
const DELETION = 'DELETION';
const WEBHOOK = 'WEBHOOK#';
const HOOKS = 'HOOKS#';
const RECEIPT = 'RECEIPT#';
const IDEMPOTENCY = 'IDEMPOTENCY#';
const DELIVERY = 'DELIVERY#';
const PAYLOAD = 'PAYLOAD#';
const ATTEMPT = 'ATTEMPT#';
const SEND_SLOT = 'SENDSLOT#';
const TOKEN = 'TOKEN#';
const STATS = 'STATS#';
const ACTIVITY = 'ACTIVITY#';
const DUE = 'DUE#';
const LOAD = 'LOAD#';

export const keys = {
  workspace: (ws: string) => `${WS}${ws}`,

  project: (ws: string, slug: string): Key => ({ PK: `${WS}${ws}`, SK: `${PROJECT}${slug}` }),
  projectSkPrefix: PROJECT,
  projectStatusIndex: (ws: string, status: string, slug: string) => ({
    GSI1PK: projectStatusPartition(ws, status),
    GSI1SK: `${PROJECT}${slug}`,
  }),
  projectStatusPartition: (ws: string, status: string) => projectStatusPartition(ws, status),
  projectNameIndex: (ws: string, normalizedName: string) => ({
    GSI2PK: projectNamePartition(ws),
    GSI2SK: normalizedName,
  }),
  projectNamePartition: (ws: string) => projectNamePartition(ws),

  label: (ws: string, slug: string): Key => ({ PK: `${WS}${ws}`, SK: `${LABEL}${slug}` }),
  labelSkPrefix: LABEL,
  /** A label's title guard in the workspace's partition, where the version before keeps them (labelGuards.ts). */
  labelTitleGuard: (ws: string, normalizedTitle: string): Key => ({ PK: `${WS}${ws}`, SK: `${TITLE}${normalizedTitle}` }),
  /** A label's title guard in a partition of its own (labelGuards.ts): one per title, off the workspace's partition. */
  labelTitleGuardOwn: (ws: string, normalizedTitle: string): Key => ({ PK: `${LABEL}${ws}#${OWN_TITLE}${normalizedTitle}`, SK: 'GUARD' }),
  /** The service's item of since when this version keeps title guards in partitions of their own, and when all were (labelGuards.ts). */
  labelGuardsLayout: (): Key => ({ PK: WS, SK: 'LAYOUT#LABELTITLES' }),
  labelIdCounter: (ws: string): Key => ({ PK: `${WS}${ws}`, SK: 'COUNTER#LABEL_ID' }),
  /** The workspace's label count and id counter in a partition of their own (labelTally.ts), off the workspace's. */
  labelCountOwn: (ws: string): Key => ({ PK: `${LABEL}${ws}#${TALLY}`, SK: 'LABELCOUNT' }),
  labelIdCounterOwn: (ws: string): Key => ({ PK: `${LABEL}${ws}#${TALLY}`, SK: 'COUNTER#LABEL_ID' }),
  /** The service's item of since when this version keeps label counts and id counters there, and when all were (labelTally.ts). */
  labelTallyLayout: (): Key => ({ PK: WS, SK: 'LAYOUT#LABELTALLY' }),
  /** A label's copy in copy partition `n` of the workspace's (copies.ts): the label item as written, read instead of it. */
  labelCopy: (ws: string, slug: string, n: number): Key => ({ PK: copyPartition(ws, n), SK: `${LABEL}${slug}` }),
  copyPartition: (ws: string, n: number) => copyPartition(ws, n),
  /** The service's item of since when this version writes label copies, and whether every label has them (copies.ts). */
  labelCopiesLayout: (): Key => ({ PK: WS, SK: 'LAYOUT#COPIES' }),
  /** A project's copy in copy partition `n` of the workspace's (copies.ts): the project item as written, its index keys aside. */
  projectCopy: (ws: string, slug: string, n: number): Key => ({ PK: copyPartition(ws, n), SK: `${PROJECT}${slug}` }),
  /** The service's item of since when this version writes project copies, and whether every project has them (copies.ts). */
  projectCopiesLayout: (): Key => ({ PK: WS, SK: 'LAYOUT#PROJECTCOPIES' }),
  /** A short-lived claim of a copy name, so concurrent duplicates of one project get distinct names. */
  copyNameClaim: (ws: string, nameKey: string): Key => ({ PK: `${WS}${ws}`, SK: `COPYNAME#${nameKey}` }),

  projectCollection: (projectId: string) => `${PROJECT}${projectId}`,
  /** How many tasks of a project carry a label; exists exactly while that count is above zero. */
  labelUse: (projectId: string, labelId: number): Key => ({ PK: `${PROJECT}${projectId}`, SK: `${USE}${labelId}` }),

  /** The label-side half of a link: in shard `shard` of the label's collection (the task-side half names it), read merged. */
  labelLink: (ws: string, labelId: number, projectId: string, task: string, shard = 0): Key => ({
    PK: labelCollection(ws, labelId, shard),
    SK: `${PROJECT}${projectId}#${TASK}${task}`,
  }),
  /** A shard of a label's collection: shard 0 is the one partition it had before shards (its set memberships and job too). */
  labelCollection: (ws: string, labelId: number, shard = 0) => labelCollection(ws, labelId, shard),
  labelCollectionShards: (ws: string, labelId: number) =>
    Array.from({ length: LABEL_LINK_SHARDS }, (_, n) => labelCollection(ws, labelId, n)),
  /** The service's item of when this version began to spread label-side links (labelLinkLayout.ts). */
  labelLinksLayout: (): Key => ({ PK: LABEL, SK: 'LAYOUT' }),
  labelLinkProjectPrefix: (projectId: string) => `${PROJECT}${projectId}#${TASK}`,

  /** A label in a project's label set (attached to the project, not to a task): the project's side. */
  projectLabel: (projectId: string, labelId: number): Key => ({ PK: `${PROJECT}${projectId}`, SK: `${LABELSET}${labelId}` }),
  projectLabelSkPrefix: LABELSET,
  /** The same membership from the label's side, so a label's delete finds every set it is in. */
  labelProject: (ws: string, labelId: number, projectId: string): Key => ({
    PK: labelCollection(ws, labelId),
    SK: `${PROJECT}${projectId}#SET`,
  }),
  labelUseSkPrefix: USE,

  /** A deleted project's cascade, until it has removed everything keyed to the project's id. */
  projectDeletion: (projectId: string): Key => ({ PK: `${PROJECT}${projectId}`, SK: DELETION }),
  /** A deleted label's mark in shard `shard` of its collection (tombstones.ts): a link is written only where none is. */
  labelTombstone: (ws: string, labelId: number, shard: number): Key => ({ PK: labelCollection(ws, labelId, shard), SK: 'GONE' }),
  /** The service's item of since when this version marks what it deletes, and checks the marks alone (tombstones.ts). */
  tombstonesLayout: (): Key => ({ PK: PROJECT, SK: 'LAYOUT#GONE' }),
  /** A deleted label's cascade, until it has removed the label from every task and label set. */
  labelDeletion: (ws: string, labelId: number): Key => ({ PK: labelCollection(ws, labelId), SK: DELETION }),
  /** The project's counters the stream keeps off its item (projectStats.ts): by slug, read beside the project item. */
  projectStats: (ws: string, slug: string): Key => ({ PK: `${STATS}${ws}#${slug}`, SK: 'STATS' }),
  /** The service's item of since when this version counts a project's stats through the stream (projectStats.ts). */
  statsLayout: (): Key => ({ PK: STATS, SK: 'LAYOUT' }),
  /** A stream record already applied to a project's counters (redelivery changes nothing); expires. */
  streamReceipt: (eventId: string): Key => ({ PK: `${RECEIPT}${eventId}`, SK: 'RECEIPT' }),
  /** Where receipts were kept before they had partitions of their own (`npm run rekey` moves what is left there). */
  legacyReceiptSkPrefix: 'APPLIED#',

  token: (tokenId: string): Key => ({ PK: `${TOKEN}${tokenId}`, SK: 'TOKEN' }),
  /** A POST's Idempotency-Key: `hash` digests the owner and the key, so any key fits the key limits. */
  idempotencyKey: (ws: string, hash: string): Key => ({ PK: `${IDEMPOTENCY}${ws}#${hash}`, SK: 'KEY' }),
  /** What a workspace's requests drew in one second, summed by the functions' workspace limits (workspaceLoads.ts); expires. */
  workspaceLoad: (ws: string, second: number): Key => ({ PK: `${LOAD}${ws}`, SK: `S#${second}` }),
  ...activityKeys,
  ...taskKeys,
  /** What the partition keys of each collection begin with (IAM policies reach partitions by these: lib/tableAccess.ts). */
  partitionPrefixes: {
    workspace: WS,
    project: PROJECT,
    label: LABEL,
    webhook: WEBHOOK,
    idempotency: IDEMPOTENCY,
    receipt: RECEIPT,
    token: TOKEN,
    activity: ACTIVITY,
    webhooks: HOOKS,
    stats: STATS,
    load: LOAD,
  },
  /** What the partition keys of each index begin with (its statements reach its partitions by these: lib/tableAccess.ts). */
  indexPartitionPrefixes: { byStatus: WS, byName: WS, byDue: DUE },
  /**
   * Whether a partition key is made for one stream record or one request (a receipt, an Idempotency-Key: no two share
   * one), or is a title guard's own (one title: its label's create and delete, nothing that gathers load).
   */
  singleUsePk: (pk: string) => [RECEIPT, IDEMPOTENCY].some((p) => pk.startsWith(p)) || new RegExp(`^${LABEL}[^#]+#${OWN_TITLE}`).test(pk),

  /** A webhook (subscription) of the workspace, in the workspace's collection of webhooks. */
  webhook: (ws: string, id: string): Key => ({ PK: `${HOOKS}${ws}`, SK: `${WEBHOOK}${id}` }),
  webhookCollection: (ws: string) => `${HOOKS}${ws}`,
  webhookSkPrefix: WEBHOOK,
  /** Where a webhook, a send slot or the webhooks' count was kept before they had partitions of their own (`npm run rekey` moves them). */
  legacyWebhookPartition: (ws: string) => `${WS}${ws}`,
  /** One event's delivery to one webhook, in shard `shard` of the webhook's deliveries; delivery ids begin with their event's time, so key order is time order. */
  webhookDelivery: (ws: string, webhookId: string, deliveryId: string, shard = 0): Key => ({
    PK: webhookDeliveries(ws, webhookId, shard),
    SK: `${DELIVERY}${deliveryId}`,
  }),
  /** Beside a delivery (its shard): its payload (over 512 bytes; read to send it) and each attempt its log keeps (read with it alone). */
  deliveryPayload: (ws: string, webhookId: string, id: string, shard = 0): Key => ({
    PK: webhookDeliveries(ws, webhookId, shard),
    SK: `${PAYLOAD}${id}`,
  }),
  deliveryAttempt: (ws: string, webhookId: string, id: string, at: string, trigger: string, shard = 0): Key => ({
    PK: webhookDeliveries(ws, webhookId, shard),
    SK: `${ATTEMPT}${id}#${at}#${trigger}`,
  }),
  deliveryAttemptPrefix: (id: string) => `${ATTEMPT}${id}#`,
  /** A shard of a webhook's deliveries: shard 0 is the one partition they had before shards (its health and recovery lease too). */
  webhookDeliveries: (ws: string, webhookId: string, shard = 0) => webhookDeliveries(ws, webhookId, shard),
  /** Every shard of a webhook's deliveries, shard 0 first (what a cursor is bound to). */
  webhookDeliveryShards: (ws: string, webhookId: string) =>
    Array.from({ length: DELIVERY_SHARDS }, (_, n) => webhookDeliveries(ws, webhookId, n)),
  /** The service's item of when this version began to spread deliveries (webhooks/store/deliveryLayout.ts): the webhooks room's. */
  deliveriesLayout: (): Key => ({ PK: HOOKS, SK: 'LAYOUT' }),
  /** A webhook's health while it fails (its run of failures), in its deliveries' shard 0: off the workspace's. */
  webhookHealth: (ws: string, webhookId: string): Key => ({ PK: webhookDeliveries(ws, webhookId, 0), SK: 'HEALTH' }),
  /** The lease of a webhook's recovery (one at a time), in its deliveries' shard 0. */
  recoveryLease: (ws: string, webhookId: string): Key => ({ PK: webhookDeliveries(ws, webhookId, 0), SK: 'RECOVERY' }),
  webhookDeliverySkPrefix: DELIVERY,
  /** How a delivery id begins: its event's time (12 hex digits of milliseconds), so a webhook's deliveries sort by it. */
  deliveryIdPrefix: (atMs: number) => `msg_${Math.max(0, atMs).toString(16).padStart(12, '0')}`,
  /** One of a workspace's slots for outbound calls on request (pings, redeliveries). */
  sendSlot: (ws: string, slot: number): Key => ({ PK: `${HOOKS}${ws}`, SK: `${SEND_SLOT}${slot}` }),
  /** How many labels the workspace holds now (its limit is checked against it, in the create's transaction). */
  labelCount: (ws: string): Key => ({ PK: `${WS}${ws}`, SK: 'LABELCOUNT' }),
  /** How many webhooks the workspace holds now (its limit is checked against it, in the create's transaction). */
  webhookCount: (ws: string): Key => ({ PK: `${HOOKS}${ws}`, SK: 'WEBHOOKCOUNT' }),
  /** A delivery's partition of the due index (GSI3), from its id: spread, so no one of them is the whole service's hot key. */
  dueShard: (deliveryId: string) => `${DUE}${shardOf(deliveryId, DUE_SHARDS)}`,
  /** Every partition of the due index, for the sweeper to read. */
  dueShards: () => Array.from({ length: DUE_SHARDS }, (_, n) => `${DUE}${n}`),
} as const;

/** Partitions of the due index: each takes about 1,000 writes a second, and a schedule's change writes it twice. */
export const DUE_SHARDS = 16;
/** Partitions a webhook's deliveries are spread over, by a hash of the delivery's id: one takes about 333 deliveries a second. */
export const DELIVERY_SHARDS = 8;
/** Partitions a label's links are spread over, by a hash of the task. */
export const LABEL_LINK_SHARDS = 8;
/** Copy partitions of a workspace's labels and projects: a read takes any one, a write writes them all. */
export const WORKSPACE_COPIES = 8;

const webhookDeliveries = (ws: string, webhookId: string, shard: number) =>
  `${WEBHOOK}${ws}#${webhookId}${shard === 0 ? '' : `#SHARD#${shard}`}`;

const copyPartition = (ws: string, n: number) => `${WS}${ws}#COPY#${n}`;
const projectStatusPartition = (ws: string, status: string) => `${WS}${ws}#STATUS#${status}`;
const projectNamePartition = (ws: string) => `${WS}${ws}#NAME`;
const labelCollection = (ws: string, labelId: number, shard = 0) => `${LABEL}${ws}#${labelId}${shard === 0 ? '' : `#SHARD#${shard}`}`;
