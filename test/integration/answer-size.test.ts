import { describe, expect, test } from 'vitest';
import { MAX_DESCRIPTION_BYTES, MAX_PAGE_SIZE, MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES } from '#domain/limits';
import { HISTORY_PAGE_BYTES } from '#domain/activityReads';
import { mapInFlight } from '#store/batches';
import { workspaceClient, type WorkspaceClient } from '#support/api';
import { streamDrained } from '#support/settle';

/**
 * The largest answers the API gives, at the worst input it accepts: a page of 100 projects, every one as
 * large as a project gets in bytes, and the history of their creation, whose pages stop at their byte
 * bound. Made through the API (each create's history entry carries the whole description), so a file of
 * its own: it takes a few seconds. The other limits of a workspace: workspace-limits.test.ts. Each name
 * starts with its number: names that differ only past a slug's 64 characters would make one slug family,
 * every create racing the others for its suffix (projects.test.ts covers those races).
 */

/** Four bytes each in UTF-8: the widest a code point gets. */
const WIDE = '\u{1D504}';
/** One character (a cluster of eight UTF-16 units: a letter and seven 3-byte marks) of 22 bytes: where a character is widest. */
const HEAVY = `e${'\u20D0'.repeat(7)}`;
/** The answers' bound (docs/api.md, "Answer sizes"), under Lambda's 6 MB. */
const FIVE_MB = 5 * 1024 * 1024;

let c: WorkspaceClient;
const made: string[] = [];

describe('answers at the limits', () => {
  test('a description or a name past its bytes is refused (422), within its characters', async () => {
    c = await workspaceClient('limits');
    // 2,000 characters, 44,000 bytes.
    const res = await c.post('/projects', { name: 'Heavy', description: HEAVY.repeat(2_000) });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { field: 'description', message: expect.stringContaining(`use at most ${MAX_DESCRIPTION_BYTES} bytes`) },
    ]);
    // 255 characters, 5,610 bytes.
    const name = await c.post('/projects', { name: HEAVY.repeat(MAX_PROJECT_NAME) });
    expect(name.status).toBe(422);
    expect(name.body.errors[0].message).toContain(`use at most ${MAX_PROJECT_NAME_BYTES} bytes`);
    expect((await c.get('/projects')).body.data).toEqual([]);
  });

  test('a page of 100 projects, every name and description as large in bytes as allowed, stays under 5 MB', async () => {
    const description = WIDE.repeat(MAX_DESCRIPTION_BYTES / 4);
    const results = await mapInFlight(
      Array.from({ length: MAX_PAGE_SIZE }, (_, i) => i),
      8,
      // 4,096 bytes: four digits and 186 heavy characters.
      (i) => c.post('/projects', { name: `${String(i).padStart(4, '0')}${HEAVY.repeat((MAX_PROJECT_NAME_BYTES - 4) / 22)}`, description }),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    made.push(...results.map((r) => r.body.data.slug as string));
    const page = await c.get('/projects', { limit: String(MAX_PAGE_SIZE) });
    expect(page.body.data).toHaveLength(MAX_PAGE_SIZE);
    const bytes = Buffer.byteLength(page.text);
    // Measured: about 4.4 MB, the largest page of the API (docs/api.md says so).
    expect(bytes).toBeGreaterThan(MAX_PAGE_SIZE * MAX_DESCRIPTION_BYTES);
    expect(bytes).toBeLessThan(FIVE_MB);
  });

  test('the history of those creates pages within its byte bound, and following its cursor reads every entry once', async () => {
    await streamDrained();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await c.get('/activities', { from_context: 'company', limit: String(MAX_PAGE_SIZE), ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      expect(Buffer.byteLength(page.text)).toBeLessThan(HISTORY_PAGE_BYTES + 2_000);
      seen.push(
        ...page.body.data
          .filter((e: { type: string }) => e.type === 'Project Created')
          .map((e: { project_slug: string }) => e.project_slug),
      );
      cursor = page.body.meta.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    // Each entry carries a 40 KB description: a page holds about 23 of them, never all 100.
    expect(pages).toBeGreaterThan(3);
    expect(seen.sort()).toEqual([...made].sort());
    // A numbered page would leave what it cuts to no page: refused, naming the way on.
    const numbered = await c.get('/activities', { from_context: 'company', limit: String(MAX_PAGE_SIZE), page: '1' });
    expect(numbered.status).toBe(422);
    expect(numbered.body.errors).toEqual([{ field: 'page', message: expect.stringContaining('follow meta.next_cursor') }]);
  });
});
