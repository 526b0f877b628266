import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { call, workspaceClient, type Response, type WorkspaceClient } from '#support/api';

/**
 * Every 422 names the value it refuses and the rule it broke, one sentence per field: the value
 * quoted as JSON writes it (control, format and bidirectional characters and unpaired surrogates
 * escaped, never echoed), cut to 40 characters with `…`; the allowed values of an enumeration, the
 * range of a number, the length of a text; and for a missing value, what the field takes.
 */
let c: WorkspaceClient;
beforeAll(async () => {
  c = await workspaceClient('vmsg');
  await c.createProject('Web');
  await c.createLabel('Bug');
});

/** The one error of a 422, after checking the problem's detail says the same sentence. */
function onlyError(res: Response): { field: string; message: string } {
  expect(res.status, res.text).toBe(422);
  expect(res.body.errors, res.text).toHaveLength(1);
  const [error] = res.body.errors;
  expect(res.body.detail).toBe(error.message);
  return error;
}

/** Characters a message never carries as themselves (they are escaped). */
const UNSAFE = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}\p{Bidi_Control}\u200b\ufeff]/u;

describe('one rule of each kind, its value named', () => {
  test.each<[string, () => Promise<Response>, string, string]>([
    [
      'an enumeration lists its values',
      () => c.get('/projects', { status: 'done' }),
      'status',
      'status: "done" is not allowed; use one of: in_progress, completed, archived',
    ],
    [
      'an enumeration inside an object',
      () => c.put('/projects/web', { settings: { default_workflow: 'waterfall' } }),
      'settings.default_workflow',
      'settings.default_workflow: "waterfall" is not allowed; use one of: kanban, scrum',
    ],
    [
      'a number below its range',
      () => c.get('/projects', { limit: '0' }),
      'limit',
      'limit: "0" is out of range; use an integer from 1 to 100',
    ],
    [
      'a number above its range, on another list',
      () => c.get('/projects-labels/bug/tasks', { project_slug: 'web', per_page: '101' }),
      'per_page',
      'per_page: "101" is out of range; use an integer from 1 to 100',
    ],
    [
      'a number that is not one',
      () => c.get('/projects', { page: '2.5' }),
      'page',
      'page: "2.5" is not a whole number; use an integer from 1 to 1000',
    ],
    [
      'a text too long says its length and the range',
      () => c.post('/projects-labels', { title: 'x'.repeat(51), color: 'FF0000' }),
      'title',
      `title: "${'x'.repeat(40)}…" is too long (51 characters); use 1 to 50 characters`,
    ],
    [
      'a text of invisible characters only',
      () => c.post('/projects', { name: '\u200b ' }),
      'name',
      'name: "\\u200B " must not be empty or invisible characters only; use 1 to 255 characters',
    ],
    [
      'a color',
      () => c.post('/projects-labels', { title: 'X', color: 'red' }),
      'color',
      'color: "red" is not a color; use six hex digits, e.g. FF5733',
    ],
    [
      'a slug in the path',
      () => c.get('/projects/Bad_Slug'),
      'slug',
      'slug: "Bad_Slug" is not a slug; use 1 to 64 lowercase letters, digits and hyphens, not starting or ending with a hyphen',
    ],
    [
      'a task id',
      () => c.post('/projects-labels/bug/attach', { task_uuid: 'a b' }, { project_slug: 'web' }),
      'task_uuid',
      'task_uuid: "a b" is not a task id; use 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
    ],
    [
      'a task prefix',
      () => c.put('/projects/web', { settings: { task_prefix: '1X' } }),
      'settings.task_prefix',
      'settings.task_prefix: "1X" is not a task prefix; use 2 to 10 letters or digits, starting with a letter',
    ],
    ['a value of the wrong kind', () => c.post('/projects', { name: 42 }), 'name', 'name: 42 is a number; use text of 1 to 255 characters'],
    ['an object that is text', () => c.put('/projects/web', { settings: 'x' }), 'settings', 'settings: "x" is text, not an object'],
    [
      'an empty list',
      () => c.post('/projects-labels/bug/attach', { task_uuids: [] }, { project_slug: 'web' }),
      'task_uuids',
      'task_uuids: [] is empty; list 1 to 100 task ids',
    ],
    [
      'a list too long, shown cut',
      () => c.post('/projects-labels/bug/attach', { task_uuids: Array.from({ length: 101 }, (_, i) => `t${i}`) }, { project_slug: 'web' }),
      'task_uuids',
      'task_uuids: ["t0","t1","t2","t3","t4","t5","t6","t7"… lists too many tasks; list 1 to 100 task ids',
    ],
    [
      'a workspace slug',
      () => call('GET', '/projects?company_slug=Acme', { token: c.token }),
      'company_slug',
      'company_slug: "Acme" is not a workspace slug; use 1 to 64 lowercase letters, digits and hyphens, not starting or ending with a hyphen, e.g. acme-corp',
    ],
  ])('%s', async (_kind, send, field, message) => {
    expect(onlyError(await send())).toEqual({ field, message });
  });
});

describe('a missing value says what the field takes', () => {
  test.each<[string, () => Promise<Response>, string, string]>([
    [
      'company_slug',
      () => call('GET', '/projects', { token: c.token }),
      'company_slug',
      "company_slug is required: the workspace's slug, e.g. acme-corp",
    ],
    ['project_slug', () => c.get('/task-labels'), 'project_slug', "project_slug is required: the project's slug, e.g. website-redesign"],
    ['a color', () => c.post('/projects-labels', { title: 'X' }), 'color', 'color is required: six hex digits, e.g. FF5733'],
    ['a search text', () => c.get('/search'), 'q', 'q is required: text of 1 to 255 characters'],
    [
      'the task of a toggle',
      () => c.post('/task-labels/bug/toggle', {}, { project_slug: 'web' }),
      'task_uuid',
      "task_uuid is required: the task's id, in the query string or the body",
    ],
  ])('%s', async (_what, send, field, message) => {
    expect(onlyError(await send())).toEqual({ field, message });
  });
});

describe('search categories', () => {
  test('categories=toString names the value and the known categories', async () => {
    expect(onlyError(await c.get('/search', { q: 'web', categories: 'toString' }))).toEqual({
      field: 'categories[0]',
      message:
        'categories[0]: "toString" is not a category; use one or more of projects, tasks, user_stories, sprints, wiki, notes, separated by commas',
    });
  });

  test('the refused one of several is named by its place and its value', async () => {
    const error = onlyError(await c.get('/search', { q: 'web', categories: 'projects, NoTes' }));
    expect(error.field).toBe('categories[1]');
    expect(error.message).toMatch(/^categories\[1\]: "NoTes" is not a category; use one or more of projects, tasks, /);
  });
});

describe('rules across fields name the value and the other field', () => {
  test.each<[string, () => Promise<Response>, string, string]>([
    [
      'per_page and limit differing',
      () => c.get('/projects', { limit: '10', per_page: '20' }),
      'per_page',
      'per_page: "20" differs from limit (10); send one of them, or the same number in both',
    ],
    [
      'a search category the service does not know (only the known names are taken)',
      () => c.get('/search', { q: 'web', categories: 'projects,widgets' }),
      'categories[1]',
      'categories[1]: "widgets" is not a category; use one or more of projects, tasks, user_stories, sprints, wiki, notes, separated by commas',
    ],
    [
      'a page with a cursor',
      () => c.get('/projects', { page: '2', cursor: 'abc' }),
      'page',
      'page: "2" cannot be combined with cursor; follow meta.next_cursor alone',
    ],
    [
      'a page too deep',
      () => c.get('/projects', { page: '21' }),
      'page',
      'page: "21" reaches past item 1000 (page x per_page = 1050); page further with the cursor (meta.next_cursor)',
    ],
    [
      'find by name with a status',
      () => c.get('/projects', { name: 'Web', status: 'completed' }),
      'name',
      'name: "Web" cannot be combined with status; find by name, or list by status',
    ],
    [
      'a task without its project',
      () => c.get('/projects-labels', { task_uuid: 't1' }),
      'task_uuid',
      `task_uuid: "t1" needs project_slug too: a task's labels are read within its project`,
    ],
    [
      'task_uuid and task_uuids',
      () => c.post('/projects-labels/bug/attach', { task_uuid: 't1', task_uuids: ['t2'] }, { project_slug: 'web' }),
      'task_uuid',
      'task_uuid: "t1" cannot be sent with task_uuids; send either task_uuid or task_uuids',
    ],
    [
      'tasks differing between query and body',
      () => c.del('/projects-labels/bug/detach', { task_uuids: ['t2', 't3'] }, { project_slug: 'web', task_uuid: 't1' }),
      'task_uuid',
      'task_uuid: ["t2","t3"] in the body differs from "t1" in the query string; send the tasks in one place, or the same in both',
    ],
  ])('%s', async (_what, send, field, message) => {
    expect(onlyError(await send())).toEqual({ field, message });
  });

  test('company_slug differing between query and body', async () => {
    expect(onlyError(await c.post('/projects', { company_slug: 'other', name: 'X' }))).toEqual({
      field: 'company_slug',
      message: `company_slug: "other" in the body differs from "${c.ws}" in the query string; send it in one place, or the same in both`,
    });
  });
});

describe('a field refused on its own does not hide the rules across fields', () => {
  // A text, a time, a category or a number that is not digits is refused, and the rules across fields still run on what
  // was sent (as they did when each was a refinement of its own); a number out of range stops them.
  test.each<[string, () => Promise<Response>, string[]]>([
    [
      'an unknown category, and per_page differing from limit',
      () => c.get('/search', { q: 'web', categories: 'bogus', limit: '5', per_page: '6' }),
      [
        'categories[0]: "bogus" is not a category; use one or more of projects, tasks, user_stories, sprints, wiki, notes, separated by commas',
        'per_page: "6" differs from limit (5); send one of them, or the same number in both',
      ],
    ],
    [
      'an invisible search text, and per_page differing from limit',
      () => c.get('/search', { q: ' ', limit: '5', per_page: '6' }),
      [
        'q: " " must not be empty or invisible characters only; use 1 to 255 characters',
        'per_page: "6" differs from limit (5); send one of them, or the same number in both',
      ],
    ],
    [
      'an invisible name, with a status',
      () => c.get('/projects', { name: ' ', status: 'archived' }),
      [
        'name: " " must not be empty or invisible characters only; use 1 to 255 characters',
        'name: " " cannot be combined with status; find by name, or list by status',
      ],
    ],
    [
      'a limit that is not a number, and per_page',
      () => c.get('/projects', { limit: 'abc', per_page: '5' }),
      [
        'limit: "abc" is not a whole number; use an integer from 1 to 100',
        'per_page: "5" differs from limit (abc); send one of them, or the same number in both',
      ],
    ],
    [
      'a time that is not one, in a project context without its project',
      () => c.get('/activities', { from_context: 'project', since: 'bad' }),
      ['since: "bad" is not an RFC 3339 time; use e.g. 2026-11-27T09:30:00Z', 'project_slug is required with from_context=project'],
    ],
    [
      'a time that is not one, and a range that would run backwards from it as sent',
      () => c.get('/activities', { from_context: 'company', since: 'zzz', until: '2026-01-01T00:00:00Z' }),
      [
        'since: "zzz" is not an RFC 3339 time; use e.g. 2026-11-27T09:30:00Z',
        'until: "2026-01-01T00:00:00Z" is before since (zzz); give a range that runs forward',
      ],
    ],
    [
      'a limit out of range, and per_page: the range alone',
      () => c.get('/projects', { limit: '500', per_page: '5' }),
      ['limit: "500" is out of range; use an integer from 1 to 100'],
    ],
  ])('%s', async (_, send, messages) => {
    const res = await send();
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.map((e: { message: string }) => e.message)).toEqual(messages);
  });
});

describe('what the request carries besides its fields', () => {
  test('a body that is not an object', async () => {
    const res = await call('POST', c.q('/projects'), { token: c.token, body: [1, 'two'] });
    expect(onlyError(res)).toEqual({
      field: 'body',
      message: `body: [1,"two"] is not a JSON object; send the request's fields as members of one object`,
    });
  });

  test('a body nested too deep: its start, as sent', async () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    const res = await call('POST', c.q('/projects'), { token: c.token, rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect(onlyError(res)).toEqual({
      field: 'body',
      message: `body: ${'{"a":'.repeat(8)}… nests objects and arrays more than 32 levels deep; the limit is 32`,
    });
  });

  test('a cursor of another query, cut to 40 characters', async () => {
    const cursor = 'x'.repeat(300);
    expect(onlyError(await c.get('/projects', { cursor }))).toEqual({
      field: 'cursor',
      message: `cursor: "${'x'.repeat(40)}…" is not a cursor returned by this query; pass meta.next_cursor as it came, or leave cursor out for the first page`,
    });
  });

  test('an Idempotency-Key of the wrong shape', async () => {
    const res = await call('POST', c.q('/projects'), { token: c.token, body: { name: 'K' }, headers: { 'idempotency-key': 'two words' } });
    expect(onlyError(res)).toEqual({
      field: 'Idempotency-Key',
      message: 'Idempotency-Key: "two words" is not a usable key; use 1 to 255 visible ASCII characters (a UUID serves well)',
    });
  });

  test('an Idempotency-Key used for another request', async () => {
    const key = `k-${c.ws}`;
    const send = (name: string) => call('POST', c.q('/projects'), { token: c.token, body: { name }, headers: { 'idempotency-key': key } });
    expect((await send('First')).status).toBe(201);
    expect(onlyError(await send('Second'))).toEqual({
      field: 'Idempotency-Key',
      message: `Idempotency-Key: "${key}" was already used with a different request; use a new key for a new request`,
    });
  });
});

describe('hostile values are named safely', () => {
  test.each<[string, unknown, string]>([
    ['a right-to-left override', '\u202Egnp.exe', 'name: "\\u202Egnp.exe" must not contain bidirectional control characters'],
    ['a NUL', 'a\u0000b', 'name: "a\\u0000b" must not contain control characters'],
    ['a line break', 'Web\nsite', 'name: "Web\\u000Asite" must not contain control characters'],
    ['an unpaired surrogate', 'a\ud800b', 'name: "a\\uD800b" must not contain unpaired surrogates'],
    ['a fraction', 42.5, 'name: 42.5 is a number; use text of 1 to 255 characters'],
    ['an object', { $gt: '' }, 'name: {"$gt":""} is an object; use text of 1 to 255 characters'],
  ])('%s', async (_what, name, message) => {
    const error = onlyError(await c.post('/projects', { name }));
    expect(error).toEqual({ field: 'name', message });
    expect(error.message).not.toMatch(UNSAFE);
  });

  test('4-byte emoji: cut between characters, never inside one', async () => {
    const error = onlyError(await c.post('/projects', { name: '😀'.repeat(300) }));
    expect(error.message).toBe(`name: "${'😀'.repeat(40)}…" is too long (300 characters); use 1 to 255 characters`);
    expect(error.message.isWellFormed()).toBe(true);
  });

  test('quotes and backslashes are escaped as JSON escapes them', async () => {
    const error = onlyError(await c.post('/projects-labels', { title: 'X', color: 'say "hi"\\' }));
    expect(error.message).toBe('color: "say \\"hi\\"\\\\" is not a color; use six hex digits, e.g. FF5733');
  });

  test('emoji joined by zero-width joiners stay whole; a joiner that joins nothing is escaped', async () => {
    const family = '👩\u200d👩\u200d👧';
    const joiner = onlyError(await c.post('/projects-labels', { title: 'X', color: `${family}\u200d` }));
    expect(joiner.message).toBe(`color: "${family}\\u200D" is not a color; use six hex digits, e.g. FF5733`);
  });

  test('a 10 KB value is named by its first 40 characters', async () => {
    const description = `${'\u202E'.repeat(3)}${'d'.repeat(10_240)}`;
    const error = onlyError(await c.post('/projects', { name: 'Long', description }));
    expect(error.message).toBe(`description: "${'\\u202E'.repeat(3)}${'d'.repeat(22)}…" must not contain bidirectional control characters`);
    expect(error.message.length).toBeLessThan(120);
    const long = onlyError(await c.post('/projects', { name: 'Long', description: 'd'.repeat(10_240) }));
    expect(long.message).toBe(`description: "${'d'.repeat(40)}…" is too long (10240 characters); use at most 10000 characters`);
  });

  test('a run of NULs is escaped within the 40 characters', async () => {
    const error = onlyError(await c.post('/projects', { name: '\u0000'.repeat(5000) }));
    expect(error.message).toBe(`name: "${'\\u0000'.repeat(6)}…" must not contain control characters`);
  });
});

/** The text between the quotes a message names its value with, as JSON reads it, and whether it was cut. */
function namedText(message: string, field: string): { text: string; cut: boolean } {
  const head = `${field}: "`;
  expect(message.startsWith(head), message).toBe(true);
  const quoted = /^"((?:[^"\\]|\\.)*)"/su.exec(message.slice(head.length - 1))![1]!;
  const cut = quoted.endsWith('…');
  return { text: JSON.parse(`"${cut ? quoted.slice(0, -1) : quoted}"`) as string, cut };
}

/** The value a message names is the value sent (or, cut, its start), and the message carries nothing unsafe. */
function expectNamed(message: string, field: string, value: string): void {
  const { text, cut } = namedText(message, field);
  if (cut) expect(value.startsWith(text), message).toBe(true);
  else expect(text).toBe(value);
  expect(message).not.toMatch(UNSAFE);
}

describe('property: any refused value of limit, status, color and categories is named in its message', () => {
  // Query strings carry well-formed text only (a URL encodes UTF-8); bodies carry anything JSON can.
  const queryText = fc.string({ unit: 'binary', maxLength: 60 }).filter((s) => s.isWellFormed());
  const bodyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.string({ unit: 'binary-ascii', minLength: 41, maxLength: 500 }),
  );
  const get = (path: string, name: string, value: string) =>
    call('GET', `${path}?company_slug=${c.ws}&q=x&${name}=${encodeURIComponent(value)}`, { token: c.token });

  test('limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        queryText.filter((s) => !/^\d{1,6}$/.test(s) || +s < 1 || +s > 100),
        async (limit) => {
          expectNamed(onlyError(await get('/projects', 'limit', limit)).message, 'limit', limit);
        },
      ),
      { numRuns: 40 },
    );
  });

  test('status', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyText.filter((s) => !['in_progress', 'completed', 'archived'].includes(s)),
        async (status) => {
          const error = onlyError(await c.put('/projects/web', { status }));
          expectNamed(error.message, 'status', status);
          expect(error.message).toMatch(/ is not allowed; use one of: in_progress, completed, archived$/);
        },
      ),
      { numRuns: 40 },
    );
  });

  test('color', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyText.filter((s) => !/^#?[0-9A-Fa-f]{6}$/.test(s)),
        async (color) => {
          const error = onlyError(await c.post('/projects-labels', { title: 'X', color }));
          expectNamed(error.message, 'color', color);
          expect(error.message).toMatch(/ is not a color; use six hex digits, e.g. FF5733$/);
        },
      ),
      { numRuns: 40 },
    );
  });

  test('categories', async () => {
    await fc.assert(
      fc.asyncProperty(
        queryText.filter((s) => !s.includes(',') && !/^[a-z_]{1,32}$/.test(s.trim())),
        async (category) => {
          const error = onlyError(await get('/search', 'categories', category));
          expectNamed(error.message, 'categories[0]', category.trim());
          expect(error.message).toContain(' is not a category; use one or more of projects, tasks, user_stories, sprints, wiki, notes');
        },
      ),
      { numRuns: 40 },
    );
  });
});
