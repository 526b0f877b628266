import { DEFAULT_PAGE_SIZE, MAX_PAGE_DEPTH, MAX_PAGE_SIZE, MAX_TASKS_PER_REQUEST } from '#domain/limits';
import { SEARCH_CATEGORIES } from '#domain/search';
import { SLUG } from '#domain/slugs';
import { LIST_PARAMETERS } from '#http/query';
import { TASK_ID } from '#wire/validation';

/**
 * The query parameters of the OpenAPI document as a client fills them in (Swagger UI's form): what
 * each is, numbers as integers with their bounds, lists as arrays (repeated keys, or the comma form),
 * and `company_slug` first, required wherever the route can only read it from the query string.
 * The schemas the handlers validate (zod) see every parameter as text: this says what the text means.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const integer = (max: number, extra: Json = {}) => ({ type: 'integer', minimum: 1, maximum: max, ...extra });

/** What each query parameter is; a list parameter's `items` is the schema of one of its values. */
const QUERY: Record<string, { description: string; schema?: Json; items?: Json }> = {
  status: { description: 'Only the projects in this status' },
  name: { description: 'Find a project by its name (case and accents ignored); not with status' },
  q: { description: 'The text to search for' },
  categories: {
    description: `The categories to search: repeat the parameter (categories=projects&categories=tasks) or separate them with commas (categories=projects,tasks); one or more of ${SEARCH_CATEGORIES.join(', ')} (singular names too). Left out: every category`,
    items: { type: 'string', pattern: '^[a-z_]{1,32}$' },
  },
  project_slug: { description: "The project's slug" },
  project_id: {
    description:
      "With from_context=project: the history of the project with this stable id (an entry's project_id), whatever project has its slug now",
  },
  task_uuid: { description: 'One task: its id, as the rest of the product gives it' },
  task_uuids: {
    description: `Several tasks: repeat the parameter (task_uuids=t-1&task_uuids=t-2) or separate the ids with commas (task_uuids=t-1,t-2), ${MAX_TASKS_PER_REQUEST} at most; not with task_uuid. The body may name them instead`,
    items: { type: 'string', pattern: TASK_ID.source },
  },
  from_context: {
    description:
      "Whose history: company (the workspace's), project (with project_slug), or sprint, sprints, user_stories (other services' contexts: an empty page)",
  },
  sprint_slug: { description: "Sent by GitScrum's client with a sprint context; not used (sprint history belongs to the sprints service)" },
  uuid: { description: "One task's entries (its label history): the task's id" },
  type: {
    description:
      'Only entries of these types, by bus name (Project Updated) or dotted form (project.updated): repeat the parameter (type=project.created&type=label.created) or separate them with commas (type=project.created,label.created)',
    items: { type: 'string' },
  },
  actor: { description: 'Only the changes this username made' },
  since: { description: 'Only entries at or after this time (RFC 3339)' },
  until: { description: 'Only entries at or before this time (RFC 3339)' },
  order: { description: 'desc (newest first, the default) or asc (oldest first)' },
  limit: {
    description: `Items per page (default ${DEFAULT_PAGE_SIZE})`,
    schema: integer(MAX_PAGE_SIZE, { default: DEFAULT_PAGE_SIZE }),
  },
  per_page: { description: "The same as limit (GitScrum's name); both and different: 422", schema: integer(MAX_PAGE_SIZE) },
  cursor: { description: "The previous page's meta.next_cursor, as it came; left out: the first page" },
  page: {
    description: `The page, counted from 1 (page x per_page at most ${MAX_PAGE_DEPTH}; further, follow the cursor); not with cursor`,
    schema: integer(MAX_PAGE_DEPTH),
  },
};

const WORKSPACE = { type: 'string', pattern: SLUG.source };

/** How a route takes `company_slug`: only from the query, from the query or the body, or not at all (every granted workspace). */
export type WorkspaceFrom = 'query' | 'query or body' | 'optional';

/** The `company_slug` parameter of a route, as it takes it. */
function workspaceParameter(from: WorkspaceFrom): Json {
  const description = {
    query: "The workspace's slug, e.g. acme-corp",
    'query or body':
      "The workspace's slug, e.g. acme-corp: here, or as `company_slug` in the JSON body (one of them is required; both and different: 422)",
    optional: 'The workspace; left out, every workspace the token is granted (the first 10)',
  }[from];
  return { name: 'company_slug', in: 'query', required: from === 'query', description, schema: WORKSPACE, example: 'acme-corp' };
}

/** The path and query parameters of a route: path first, then `company_slug`, then the route's own query parameters. */
export function parametersOf(input: Json, workspace: WorkspaceFrom): Json[] {
  const path = (input.properties?.path ?? {}) as Json;
  const query = (input.properties?.query ?? {}) as Json;
  const inPath = Object.entries((path.properties ?? {}) as Json).map(([name, schema]) => ({ name, in: 'path', required: true, schema }));
  const inQuery = Object.entries((query.properties ?? {}) as Json).map(([name, schema]) => {
    const said = QUERY[name];
    if (!said) throw new Error(`lib/openapi/parameters.ts says nothing of the query parameter ${name}: add it to QUERY.`);
    const list = LIST_PARAMETERS.has(name);
    if (list !== (said.items !== undefined))
      throw new Error(
        `lib/openapi/parameters.ts: ${name} is ${list ? '' : 'not '}a list parameter (http/query.ts); ${list ? 'give' : 'drop'} its items.`,
      );
    return {
      name,
      in: 'query',
      required: ((query.required ?? []) as string[]).includes(name),
      description: said.description,
      ...(list
        ? { style: 'form', explode: true, schema: { type: 'array', items: said.items, minItems: 1 } }
        : { schema: said.schema ?? schema }),
    };
  });
  return [...inPath, workspaceParameter(workspace), ...inQuery];
}
