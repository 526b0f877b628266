import type { MiddlewareStack } from '@smithy/types';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createLabel } from '#domain/labels';
import { PROBLEMS, type ProblemCode } from '#wire/problems';
import { createProject } from '#domain/projects';
import { problemBody } from '#http/problem';
import { routes } from '#http/routes';
import { OPENAPI_FILE } from '#lib/openapi/document';
import { repoRoot } from '#lib/paths';
import { db } from '#store/client';
import { uniqueWorkspace } from '#support/api';
import { invokeRoute, principalFor } from '#support/invoke';
import { checkAnswer } from '#support/openapi';

/**
 * Every error body validates against the schema the OpenAPI document gives for its status, and the
 * document's error examples are real: a code of the catalogue, its error_code, the answer's status.
 */
const doc = JSON.parse(readFileSync(join(repoRoot, OPENAPI_FILE), 'utf8')) as Record<string, any>;
const codes = Object.keys(PROBLEMS) as ProblemCode[];

describe('the OpenAPI error examples', () => {
  const answers = routes.flatMap((r) =>
    Object.entries(doc.paths[r.path][r.method.toLowerCase()].responses as Record<string, any>)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => [`${r.method} ${r.path} ${status}`, Number(status), response] as const),
  );

  test.each(answers)('%s: one example per problem of that status, each as the service renders it', (where, status, response) => {
    const examples = response.content['application/problem+json'].examples as Record<string, { $ref: string }>;
    const expected = codes.filter((c) => PROBLEMS[c].status === status);
    expect(Object.keys(examples).sort(), where).toEqual(expected.sort());
    for (const [code, ref] of Object.entries(examples)) {
      const example = doc.components.examples[ref.$ref.split('/').pop()!].value;
      expect(example).toMatchObject({ status, code, error_code: PROBLEMS[code as ProblemCode].errorCode });
      // Valid against the schema of that answer, on that route.
      const [method, path] = where.split(' ');
      checkAnswer(method!, path!.replace(/\{[^}]+\}/g, 'x'), status, 'application/problem+json', JSON.stringify(example));
    }
  });
});

test.each(codes)('a %s problem, as rendered, is a valid Problem of its status', (code) => {
  const body = problemBody({ code, detail: 'Something.', errors: [{ field: 'title', message: 'is required' }] }, 'req-1');
  checkAnswer('GET', '/not-a-route', PROBLEMS[code].status, 'application/problem+json', body);
});

test('a bulk attach that stopped part way (503) names the tasks it changed, in a body the document allows', async () => {
  const ws = uniqueWorkspace('partial');
  const actor = { name: 'T', username: 't' };
  const project = await createProject(ws, { name: 'Web', owner: actor });
  const label = await createLabel(ws, { title: 'Bug', color: 'FF0000' }, actor);
  // The second transaction of the attach (its second chunk of tasks) fails for good.
  let transactions = 0;
  const stack = db.middlewareStack as MiddlewareStack<any, any>;
  stack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && ++transactions === 2)
        throw Object.assign(new Error('injected'), { name: 'ProvisionedThroughputExceededException', $metadata: { httpStatusCode: 400 } });
      return next(args);
    },
    { step: 'initialize', name: 'secondTransactionFails' },
  );
  try {
    const route = routes.find((r) => r.name === 'attach-label')!;
    const tasks = Array.from({ length: 64 }, (_, i) => `t${i}`);
    const res = await invokeRoute(
      route,
      {
        path: `/projects-labels/${label.slug}/attach`,
        query: { company_slug: ws, project_slug: project.slug },
        body: { task_uuids: tasks },
        expectedStatus: 503,
      },
      principalFor(ws),
    );
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).applied_task_uuids).toEqual(tasks.slice(0, 32));
    checkAnswer('POST', `/projects-labels/${label.slug}/attach`, 503, 'application/problem+json', res.body);
  } finally {
    stack.remove('secondTransactionFails');
  }
});
