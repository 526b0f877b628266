/**
 * The Project and Label Management Service's client: one method per route, retries that never make a
 * create twice, pages walked with `for await`, one error class per problem, and webhook verification.
 */
export { createClient, type Client, type ClientOptions, type NotModified, type Result } from './client.js';
export type { CallOptions } from './http.js';
export type { AttemptInfo, RetryInfo } from './hooks.js';
export type { ActivityFollower, FollowOptions, FollowParams } from './activity.js';
export { PagePromise } from './pages.js';
export { verifyWebhook, type WebhookHeaders } from './webhooks.js';
export {
  AbortError,
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionError,
  PreconditionFailedError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  UnexpectedResponseError,
  ValidationError,
  NoAnswerError,
  UnknownWebhookEventError,
  WebhookVerificationError,
} from './errors.js';
export { WEBHOOK_EVENT_TYPES } from './generated.js';
export type * from './generated.js';
