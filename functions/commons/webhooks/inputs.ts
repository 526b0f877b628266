import * as z from 'zod/mini';
import { quoted } from '#domain/quoted';
import { SLUG } from '#domain/slugs';
import { paginationFields, pagingRules, rfc3339Time, text } from '#wire/validation';
import { dottedName, isOperationalType, OUTBOUND_TYPES } from '#domain/eventNames';
import { DELIVERY_STATUSES } from './entities';
import { ALL_EVENTS, KNOWN_TYPES_SENTENCE, subscribableType } from './eventTypes';
import { MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES, MAX_EVENT_TYPES } from './limits';
import { isUsableSecret } from './signing';

/**
 * What the webhook routes accept (the input schemas of their handlers). Each exported schema is built
 * by a call marked pure, so a route's bundle keeps, and its cold start builds, only the ones it names.
 */

/** Ids as the service makes them are checked by lookup (an unknown one is a 404), so a path id only needs a sane shape. */
const id = () => z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"'));
export const webhookPath = /* @__PURE__ */ z.object({ id: /* @__PURE__ */ id() });
export const deliveryPath = /* @__PURE__ */ z.object({ id: /* @__PURE__ */ id(), delivery_id: /* @__PURE__ */ id() });

// Its length and form are the request-forgery rules' to judge (addresses.ts): they never repeat credentials back.
const url = () => z.string().check(z.minLength(1));

/** Event types in either spelling, each once, as their bus names; `*` alone when listed at all. */
/** Every name `events` takes, as the OpenAPI document (and so the client's types) lists them. */
const EVENT_NAMES = () => [ALL_EVENTS, ...OUTBOUND_TYPES, ...OUTBOUND_TYPES.map(dottedName)];

const events = () =>
  z.pipe(
    z.array(z.string().register(z.globalRegistry, { enum: EVENT_NAMES() })).check(
      z.minLength(1),
      z.maxLength(MAX_EVENT_TYPES),
      z.superRefine((values: string[], ctx) => {
        values.forEach((value, i) => {
          if (subscribableType(value) === undefined)
            ctx.issues.push({
              code: 'custom',
              input: value,
              path: [i],
              message: `${quoted(value)} is not an event type; ${KNOWN_TYPES_SENTENCE}`,
            });
        });
      }),
    ),
    z.transform((values: string[]) => {
      const types = [...new Set(values.map((v) => subscribableType(v)!))];
      // `*` stands for every change; an operational type named beside it is kept (`*` does not take them).
      return types.includes(ALL_EVENTS) ? [ALL_EVENTS, ...types.filter((t) => t !== ALL_EVENTS && isOperationalType(t))] : types;
    }),
  );

const projectSlug = () => z.string().check(z.regex(SLUG, 'must be a project slug (lowercase letters, digits and hyphens)'));

const createInput = () =>
  z.object({
    body: z.object({
      url: url(),
      events: events(),
      description: z.optional(text(0, MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES)),
      project_slug: z.optional(z.nullable(projectSlug())),
    }),
  });
export const createWebhookInput = /* @__PURE__ */ createInput();

const updateInput = () =>
  z.object({
    path: webhookPath,
    body: z.object({
      url: z.optional(url()),
      events: z.optional(events()),
      description: z.optional(text(0, MAX_DESCRIPTION, MAX_DESCRIPTION_BYTES)),
      project_slug: z.optional(z.nullable(projectSlug())),
      active: z.optional(z.boolean()),
    }),
  });
export const updateWebhookInput = /* @__PURE__ */ updateInput();

/** A rotation's options: a secret of the caller's own, and whether the replaced ones stop signing at once. */
const rotateInput = () =>
  z.object({
    path: webhookPath,
    body: z.optional(
      z.object({
        secret: z.optional(
          z
            .string()
            .check(
              z.refine(isUsableSecret, 'is not a usable secret; use whsec_ and the base64 of 24 to 64 random bytes (or leave it out)'),
            ),
        ),
        expire_previous_now: z.optional(z.boolean()),
      }),
    ),
  });
export const rotateSecretInput = /* @__PURE__ */ rotateInput();

const pageQuery = () => z.object({ ...paginationFields() }).check(pagingRules());
export const listWebhooksInput = () => z.object({ query: pageQuery() });
/**
 * The deliveries log, all of it or of one status. A status is a filter over the log (pages by cursor
 * only: a page it leaves short still says where to go on), so `page` numbers are refused with it.
 */
export const listDeliveriesInput = () =>
  z.object({
    path: webhookPath,
    query: z.object({ ...paginationFields(), status: z.optional(z.enum(DELIVERY_STATUSES)) }).check(
      pagingRules(),
      z.refine((q) => q.page === undefined || q.status === undefined, {
        message: 'cannot be combined with status; page a status with the cursor (meta.next_cursor)',
        path: ['page'],
      }),
    ),
  });

/** A recovery: the deliveries of events since when (RFC 3339) are sent again. */
export const recoverInput = /* @__PURE__ */ z.object({ path: webhookPath, body: /* @__PURE__ */ z.object({ since: rfc3339Time }) });
