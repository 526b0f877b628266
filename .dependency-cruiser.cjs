/**
 * The house rules (docs/architecture.md): one direction of dependency between the rooms.
 *   functions/<area>/         handlers: may use http, wire and domain, never store or the AWS SDK
 *   functions/commons/http/   requests: may use wire and domain, never store, events or the AWS SDK
 *   functions/commons/wire/   what crosses the boundary (views, input schemas, messages, problems): may use domain only
 *   functions/commons/domain/ may use store, never http or wire: it speaks only the domain
 *   functions/commons/store/  uses nothing above it but the entities it keeps (domain/entities.ts)
 *   functions/commons/events/ the stream side: may use wire, domain and store, never http; nothing else uses it but handlers
 *   functions/commons/observability/ logs, metrics and counts: any room may use it; it uses no room
 *   functions/commons/webhooks/ subscriptions, deliveries, signing, address rules: may use domain, store, the
 *                             stream side's batch report; reached by handlers, the route rows (answers), the store (entities)
 *                             and its operational events (the event schemas: answers; the stream side: views)
 *   functions/commons/webhooks/store/ the room's own storage (its partitions, HOOKS# and WEBHOOK#): the store's shared
 *                             pieces (client, keys, codec, ...) and the room's entities, nothing else of the room
 *   functions/                never lib/, bin/ or test/
 *   lib/cdk/                  never the local emulator or the checker
 * `npm test` runs `depcruise` with this file; any violation fails it.
 */
const HANDLERS = '^functions/(?!commons/)[^/]+/';
const SEAMS_OF_WEBHOOK_EVENTS = '^functions/commons/(wire/eventSchemas|events/outbound)\\.ts$';
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'No module may depend on itself through others.', from: {}, to: { circular: true } },
    {
      name: 'handlers-use-http-wire-and-domain-only',
      severity: 'error',
      comment: 'A handler validates, makes one domain call and shapes the answer: no storage, no AWS SDK.',
      from: { path: HANDLERS },
      to: { path: ['^functions/commons/(webhooks/)?store/', '^node_modules/@aws-sdk/', '^functions/(?!commons/)[^/]+/'] },
    },
    {
      name: 'http-never-reaches-store',
      severity: 'error',
      comment: 'The HTTP layer speaks to the domain; only the domain touches the store.',
      from: { path: '^functions/commons/http/' },
      to: { path: ['^functions/commons/(webhooks/)?store/', '^node_modules/@aws-sdk/'] },
    },
    {
      name: 'wire-speaks-only-of-the-boundary',
      severity: 'error',
      comment:
        'Views, input schemas, messages and the problem catalogue: what requests and messages share. They read domain types and errors, nothing else of the house.',
      from: { path: '^functions/commons/wire/' },
      to: { path: ['^functions/commons/(http|events|store)/', '^functions/(?!commons/)[^/]+/', '^node_modules/(@middy|@aws-sdk)/'] },
    },
    {
      name: 'events-never-reach-http',
      severity: 'error',
      comment: 'Requests and messages both use the wire room; neither imports the other.',
      from: { path: '^functions/commons/events/' },
      to: { path: '^functions/commons/http/' },
    },
    {
      name: 'domain-never-reaches-http',
      severity: 'error',
      comment: 'Use cases know nothing of HTTP, middy, API Gateway events, statuses or the wire shapes.',
      from: { path: '^functions/commons/domain/' },
      to: { path: ['^functions/commons/(http|wire)/', '^functions/(?!commons/)[^/]+/', '^node_modules/@middy/'] },
    },
    {
      name: 'store-is-the-bottom',
      severity: 'error',
      comment: 'The store depends on nothing above it but the declarations of the entities it keeps.',
      from: { path: '^functions/commons/store/' },
      to: {
        path: [
          '^functions/commons/(http|wire)/',
          '^functions/commons/domain/(?!entities\\.ts$)',
          '^functions/commons/webhooks/(?!entities\\.ts$)',
          '^functions/(?!commons/)[^/]+/',
          '^node_modules/(@middy|zod)/',
        ],
      },
    },
    {
      name: 'webhooks-store-is-its-rooms-bottom',
      severity: 'error',
      comment:
        "The webhooks room's storage depends on the store's shared pieces and the room's entities alone: the room's use cases use it, never the other way.",
      from: { path: '^functions/commons/webhooks/store/' },
      to: {
        path: [
          '^functions/commons/(http|wire|events)/',
          '^functions/commons/domain/(?!entities\\.ts$)',
          '^functions/commons/webhooks/(?!store/|entities\\.ts$)',
          '^functions/(?!commons/)[^/]+/',
          '^node_modules/(@middy|zod)/',
        ],
      },
    },
    {
      name: 'only-the-webhooks-room-keeps-webhooks',
      severity: 'error',
      comment:
        "The webhooks room's storage is its own: the rest of the house meets the room through its use cases, not its items (but the stream side, which decodes a webhook's stream images for its health events).",
      from: { path: '^functions/commons/(http|wire|domain|store|events)/', pathNot: SEAMS_OF_WEBHOOK_EVENTS },
      to: { path: '^functions/commons/webhooks/store/' },
    },
    {
      name: 'entities-are-pure-declarations',
      severity: 'error',
      comment: 'What a project, a label, an actor and a token are: every room reads it, so it imports nothing.',
      from: { path: '^functions/commons/domain/entities\\.ts$' },
      to: {},
    },
    {
      name: 'events-are-the-stream-side',
      severity: 'error',
      comment: 'Outbound events are made from the stream, never from a request: no other room reaches them.',
      from: { path: '^functions/commons/(http|wire|domain|store)/' },
      to: { path: '^functions/commons/events/' },
    },
    {
      name: 'observability-is-a-leaf',
      severity: 'error',
      comment: 'Logging and metrics serve every room and know none of them: no cycles, and cheap to load.',
      from: { path: '^functions/commons/observability/' },
      to: {
        path: [
          '^functions/commons/(http|wire|domain|store|events)/',
          '^functions/(?!commons/)[^/]+/',
          '^node_modules/(@middy|zod|@aws-sdk)/',
        ],
      },
    },
    {
      name: 'webhooks-room-serves-requests-and-its-queue',
      severity: 'error',
      comment:
        "Webhooks are a room of their own (subscriptions, deliveries, signing, address rules): it uses the domain, the store and the stream side's batch report, never HTTP.",
      from: { path: '^functions/commons/webhooks/' },
      to: { path: ['^functions/commons/http/', '^functions/(?!commons/)[^/]+/', '^node_modules/@middy/'] },
    },
    {
      name: 'only-its-seams-reach-the-webhooks-room',
      severity: 'error',
      comment:
        'The rest of the house meets the webhooks room at its seams: the route rows read its answer schemas, the store its entities, the events of its health their webhook (below).',
      from: {
        path: '^functions/commons/(http|wire|domain|events|observability)/',
        pathNot: ['^functions/commons/http/webhookRoutes\\.ts$', SEAMS_OF_WEBHOOK_EVENTS],
      },
      to: { path: '^functions/commons/webhooks/' },
    },
    {
      name: 'webhook-events-read-its-view-only',
      severity: 'error',
      comment:
        'The operational events (Webhook Failing, ...) carry the webhook as the API shows it: their schemas read its answer schema, the stream side its view and the decoder of its items, nothing else of the room.',
      from: { path: SEAMS_OF_WEBHOOK_EVENTS },
      to: { path: '^functions/commons/webhooks/', pathNot: '^functions/commons/webhooks/(answers|views|store/webhookItem)\\.ts$' },
    },
    {
      name: 'functions-are-self-contained',
      severity: 'error',
      comment: 'What is deployed never imports the CDK app, the local emulator, CLIs or tests.',
      from: { path: '^functions/' },
      to: { path: '^(lib|bin|test)/' },
    },
    {
      name: 'cdk-apart-from-local-tools',
      severity: 'error',
      comment: 'The CDK app does not depend on the local emulator or the checker.',
      from: { path: '^lib/cdk/' },
      to: { path: '^lib/(local|checker)/' },
    },
    { name: 'no-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|\\.data|\\.bench|lib/client)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    combinedDependencies: false,
  },
};
