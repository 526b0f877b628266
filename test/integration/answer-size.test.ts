import { describe, expect, test } from 'vitest';
import { MAX_DESCRIPTION_BYTES, MAX_PAGE_SIZE, MAX_PROJECT_NAME, MAX_PROJECT_NAME_BYTES } from '#domain/limits';
import { CUT_TEXT_BYTES } from '#domain/activity';
import { HISTORY_PAGE_BYTES } from '#domain/activityReads';
import { mapInFlight } from '#store/batches';
import { workspaceClient, type WorkspaceClient } from '#support/api';
import { streamDrained } from '#support/settle';

/**
 * The largest answers the API gives, at the worst input it accepts: a page of 100 projects, every one as
 * large as a project gets in bytes, and the history of their creation, whose entries keep each long text
 * cut. Made through the API (each create's history entry carries the name and the description), so a file of
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

  test('the history of those creates keeps each long text cut, and a page of 100 of them stays under its byte bound', async () => {
    await streamDrained();
    const seen: string[] = [];
    let cursor: string | undefined;
    let largest = 0;
    for (;;) {
      const page = await c.get('/activities', {
        from_context: 'company',
        order: 'asc',
        limit: String(MAX_PAGE_SIZE),
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status).toBe(200);
      if (page.body.data.length === 0) break;
      largest = Math.max(largest, Buffer.byteLength(page.text));
      for (const e of page.body.data as {
        type: string;
        project_slug: string;
        changes: { field: string; to: string; cut?: string[] }[];
      }[]) {
        if (e.type !== 'Project Created') continue;
        seen.push(e.project_slug);
        // The 40 KB description and the 4 KB name, each cut to its first 1,024 bytes of whole characters, and said so.
        for (const field of ['description', 'name']) {
          const change = e.changes.find((ch) => ch.field === field)!;
          expect(change.cut).toEqual(['to']);
          expect(Buffer.byteLength(change.to)).toBeLessThanOrEqual(CUT_TEXT_BYTES);
          expect(Buffer.byteLength(change.to)).toBeGreaterThan(CUT_TEXT_BYTES - 22);
          expect(change.to).not.toContain('\uFFFD');
        }
      }
      cursor = page.body.meta.next_cursor;
    }
    expect(seen.sort()).toEqual([...made].sort());
    // Measured: about 0.7 MB for a page of 100 creates at every limit (each entry still names its project in full).
    expect(largest).toBeGreaterThan(MAX_PAGE_SIZE * 2 * CUT_TEXT_BYTES);
    expect(largest).toBeLessThan(HISTORY_PAGE_BYTES);
    console.log(`history: the largest page of ${MAX_PAGE_SIZE} creates at the limits is ${largest} bytes`);
  });
});
