import type * as z from 'zod';
import type { Scope } from '#domain/scopes';

/** What a row of the route table (routes.ts) says of an endpoint, and how a request finds its row. */

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The success answer of a route (its failures are the problem catalogue's). */
interface Answer {
  status: 200 | 201;
  schema: z.ZodType;
  description: string;
}

/** What a set of sample requests acts on: a workspace, a project, a label and a task. */
export interface SampleTargets {
  ws: string;
  project: string;
  label: string;
  task: string;
  /** What the delete requests remove (default: project and label themselves). */
  doomedProject?: string;
  doomedLabel?: string;
  /** The label the create request makes. */
  newLabel: { title: string; color: string };
  /** The webhook and the delivery of it the webhook requests name (default: the sample fixtures'). */
  webhook?: string;
  delivery?: string;
}

/** A valid request of a route (the sample events, the isolation matrix and fault injection send it). */
export interface SampleRequest {
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

export interface Route {
  /** Function name, sample event name stem and log name. */
  name: string;
  method: HttpMethod;
  /** API Gateway resource path, `{param}` for path parameters. */
  path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  handler: string;
  scope: Scope;
  /**
   * The read scope of the data its answer carries, where `scope` does not grant it: a write answers the
   * resource it wrote, so it needs the kind's read scope too (no route hands data to a token that may not read it).
   */
  reads?: Scope;
  /** Read routes get read-only table grants; `none`, a route that never touches the table, gets none at all. */
  access: 'read' | 'write' | 'none';
  /** What it answers on success (the OpenAPI document's schema, the sample's expected status). */
  answer: Answer;
  /**
   * Which of its answer's shapes the parameters given choose, where it answers several: the client's types
   * follow it, and a test holds the handler to it.
   */
  answerChoice?: AnswerChoice;
  /** Its answer is one resource with its entity tag (`resource()` in the handler); a GET of it answers 304. */
  tagged?: true;
  /**
   * It seals (and opens) webhook secrets, or only opens them (store/sealing.ts): the stack lets its function
   * make data keys under the secrets key (`seal`) or only unwrap them (`open`); no other function may use it.
   */
  secrets?: 'seal' | 'open';
  /** A valid request of it against the given targets. */
  sample: (t: SampleTargets) => SampleRequest;
}

/**
 * A list of one kind of item or another (answered whole or by the page, where `paged`): its items are of the
 * schema (by its OpenAPI name) of the first of `items` whose parameter is given, else of `otherwise`; any of
 * `paged` given answers a page, none the whole list.
 */
export interface AnswerChoice {
  paged?: readonly string[];
  items: readonly (readonly [param: string, schema: string])[];
  otherwise: string;
}

/** Matches a concrete path against a route template; returns the path parameters or null. */
export function matchPath(template: string, path: string): Record<string, string> | null {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i]!;
    if (seg.startsWith('{') && seg.endsWith('}')) {
      if (!p[i]) return null;
      try {
        params[seg.slice(1, -1)] = decodeURIComponent(p[i]!);
      } catch {
        return null;
      }
    } else if (seg !== p[i]) return null;
  }
  return params;
}
