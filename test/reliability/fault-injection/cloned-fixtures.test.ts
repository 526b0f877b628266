import { expect, test } from 'vitest';
import { checkTable } from '#checker/invariants';
import { keys } from '#store/keys';
import { drain, skipStream, tableEachTest } from '#support/faults';
import { cloneFixtures, fixtureItems, seedFixture } from '#support/fixtures';
import type { Fixture } from '#support/requests';

/**
 * The fault injection of the routes runs each case on a copy of one seeded fixture
 * (test/support/fixtures.ts, cloneFixtures): a copy must be, item for item, what seeding a fixture
 * through the data layer and letting the stream catch up makes, in a workspace and with ids of its own.
 */
tableEachTest(() => 'cloned-fixtures');

/**
 * A workspace's items with its own names (workspace, project id, webhook and delivery ids, the delivery's due shard) taken out,
 * and what differs by when or by chance (times, a delivery's expiry in epoch seconds, the webhook's secret, the
 * stream records' ids a history entry names).
 */
async function itemsOf(fixture: Fixture): Promise<string[]> {
  const { items, projectId } = await fixtureItems(fixture);
  const names: [string, string][] = [
    [fixture.ws, '<ws>'],
    [projectId, '<project>'],
    [fixture.webhook!, '<webhook>'],
    [fixture.delivery!, '<delivery>'],
    // The delivery's shard of the due index, which follows from its id.
    [`"${keys.dueShard(fixture.delivery!)}"`, '"<the delivery\'s due shard>"'],
  ];
  return (
    items
      .map((i) => names.reduce((t, [from, to]) => t.replaceAll(from, to), JSON.stringify(i)))
      .map((t) => t.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>'))
      .map((t) =>
        t.replace(/"ttl":\d+/, '"ttl":"<expiry>"').replace(/"sealed:v[12]:[a-z]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+"/, '"<sealed secret>"'),
      )
      // A history entry's event (the stream record's id), and what derives from it: the entry's id and its mark's shard.
      .map((t) =>
        t.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<event>').replace(/act_[A-Za-z0-9_-]{24}/g, '<entry>'),
      )
      .map((t) => t.replace(/#(SHARD|MARKS)#\d+/, '#$1#<n>').replace(/"expires_at":\d+/, '"expires_at":"<expiry>"'))
      // A delivery's items are in the shard its id gives (shard 0 has no suffix): check:table holds each copy to its own.
      .map((t) => t.replace(/"PK":"WEBHOOK#<ws>#<webhook>(#SHARD#<n>)?"/, '"PK":"WEBHOOK#<ws>#<webhook><its shard>"'))
      .sort()
  );
}

test('a copy of a seeded fixture is a seeded fixture, item for item, in a workspace of its own', async () => {
  const template = await seedFixture('tpl', { webhook: true });
  await drain();
  const snapshot = await fixtureItems(template);
  const seeded = await seedFixture('real', { webhook: true });
  await drain();
  const [copy, second] = await cloneFixtures(snapshot, 2, 'copy');
  await skipStream();

  expect(new Set([template.ws, copy!.ws, second!.ws]).size).toBe(3);
  expect(copy!.webhook).not.toBe(template.webhook);
  expect(copy!.delivery).not.toBe(template.delivery);
  const secrets = await Promise.all([template, copy!, second!].map(async (f) => (await fixtureItems(f)).secret));
  expect(new Set(secrets).size).toBe(3);
  const expected = await itemsOf(seeded);
  expect(expected.length).toBeGreaterThan(10);
  expect(await itemsOf(copy!)).toEqual(expected);
  expect(await itemsOf(second!)).toEqual(expected);
  // The template is untouched, and every workspace's counters and links hold.
  expect(await itemsOf(template)).toEqual(expected);
  expect((await checkTable([template.ws, seeded.ws, copy!.ws, second!.ws])).violations).toEqual([]);
});
