import { SCOPES } from '#domain/scopes';

/** What the sample events act on: the workspace, its fixtures and the principal the events carry. */

export const SAMPLE_WORKSPACE = 'acme-corp';
/** Replaced by a real token when the authorizer event is invoked (`--seed`, `--token` or TOKEN). */
export const TOKEN_PLACEHOLDER = '{{TOKEN}}';
export const AUTHORIZER_EVENT = 'authorizer';
/** The stream processor's sample: a batch of the table's stream records (events/stream-processor.json). */
export const STREAM_EVENT = 'stream-processor';
/** The inbound consumer's sample: an SQS batch of EventBridge events (events/inbound-consumer.json). */
export const INBOUND_EVENT = 'inbound-consumer';
/** The webhook deliverer's sample: an SQS batch of one bus event and one scheduled attempt (events/webhook-deliverer.json). */
export const WEBHOOK_EVENT = 'webhook-deliverer';

/** What the events act on; `seedFixtures()` makes each exist (or, for `absentLabel`, not exist). */
export const FIXTURES = {
  project: { name: 'Website Redesign', slug: 'website-redesign' },
  /** The project delete-project removes, so website-redesign survives for the other events. */
  doomedProject: { name: 'Legacy Site', slug: 'legacy-site' },
  label: { title: 'Bug', slug: 'bug', color: 'D73A4A' },
  /** The label delete-label removes. */
  doomedLabel: { title: 'Obsolete', slug: 'obsolete', color: 'CCCCCC' },
  /** The label create-label creates: removed by seeding so the event can run again. */
  newLabel: { title: 'Feature', slug: 'feature', color: '1E90FF' },
  task: 'task-1',
} as const;

/** The principal the sample events carry in requestContext.authorizer (what the authorizer returns). */
export const SAMPLE_PRINCIPAL = {
  tokenId: 'samplesampletokn',
  owner: { name: 'Local Developer', username: 'local-dev' },
  workspaces: [SAMPLE_WORKSPACE],
  scopes: [...SCOPES],
};

/** Fixed ids and times so regenerating the events changes nothing unless the events really change. */
export const FIXED_EPOCH = Date.UTC(2026, 0, 15, 9, 30, 0);
