import { expect, test } from 'vitest';
import { workspaceClient } from '../support/api.ts';

test('a new workspace lists no projects', async () => {
  const c = await workspaceClient();
  const res = await c.get('/projects');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ data: [], meta: { limit: 50, next_cursor: null } });
});
