import { describe, expect, test } from 'vitest';
import { MAX_DESCRIPTION, MAX_PAGE_SIZE, MAX_PROJECT_NAME } from '#domain/limits';
import { mapInFlight } from '#store/batches';
import { workspaceClient } from '#support/api';

/**
 * The largest answer the API gives: a page of 100 projects, every one as large as a project gets. Made
 * through the API (each create's history entry carries the whole description), so a file of its own: it
 * takes a few seconds. The other limits of a workspace: workspace-limits.test.ts. Each name starts with its
 * number: `𝔄` folds to `a` in a slug, so names that differ only past the slug's 64 characters would make
 * one slug family, every create racing the others for its suffix (projects.test.ts covers those races).
 */

/** Four bytes each in UTF-8: the widest a character gets. */
const WIDE = '\u{1D504}';

describe('answers at the limits', () => {
  test("a page of 100 projects, every name and description as long and wide as allowed, stays under Lambda's 6 MB", async () => {
    const c = await workspaceClient('limits');
    const description = WIDE.repeat(MAX_DESCRIPTION);
    const made = await mapInFlight(
      Array.from({ length: MAX_PAGE_SIZE }, (_, i) => i),
      8,
      (i) => c.post('/projects', { name: `${String(i).padStart(4, '0')}${WIDE.repeat(MAX_PROJECT_NAME - 4)}`, description }),
    );
    expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
    const page = await c.get('/projects', { limit: String(MAX_PAGE_SIZE) });
    expect(page.body.data).toHaveLength(MAX_PAGE_SIZE);
    const bytes = Buffer.byteLength(page.text);
    // Measured: about 4.1 MB, the largest answer of the API (docs/api.md says so); Lambda's limit is 6 MB.
    expect(bytes).toBeGreaterThan(MAX_PAGE_SIZE * MAX_DESCRIPTION * 4);
    expect(bytes).toBeLessThan(6 * 1024 * 1024 * 0.75);
  });
});
