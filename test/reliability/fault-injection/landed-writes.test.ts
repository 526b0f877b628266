import { expect, test } from 'vitest';
import { routeNamed } from '#local/samples';
import { keys } from '#store/keys';
import { readKeptStats } from '#store/projectStats';
import { drain, faults, injector, tableEachTest } from '#support/faults';
import { seedFixture } from '#support/fixtures';
import { invokeRoute, principalFor } from '#support/invoke';
import { sampleRequest } from '#support/requests';

/**
 * A write that has landed is answered as such: a read made beside it that fails once is made again rather than
 * answered 503 (outcome unknown), after which a retry with the same If-Match could only be a 412.
 */
tableEachTest(() => 'landed-writes');

test.each([
  ['without If-Match', false],
  ['with a current If-Match', true],
] as const)(
  'PUT /projects/{slug} %s answers 200 with its change when the read of its stats fails once beside the write',
  async (_name, conditional) => {
    const fixture = await seedFixture('lw');
    await drain();
    const update = routeNamed('update-project');
    const get = routeNamed('get-project');
    const principal = principalFor(fixture.ws);
    const read = () => invokeRoute(get, sampleRequest(get, fixture), principal);
    // With If-Match, the tag a client holds: the PUT then reads the project and its stats to check it, and writes.
    const tag = async () => (conditional ? ((await read()).headers!.ETag as string) : undefined);
    const put = (description: string, ifMatch: string | undefined) =>
      invokeRoute(
        update,
        { ...sampleRequest(update, fixture), body: { company_slug: fixture.ws, description } },
        principal,
        ifMatch ? { 'If-Match': ifMatch } : {},
      );
    const statsKey = JSON.stringify(keys.projectStats(fixture.ws, fixture.project));
    const readsStats = (i: number) => injector.calls[i] === 'GetItemCommand' && JSON.stringify(injector.inputs[i]!.Key) === statsKey;
    // The read beside the write: the last read of the stats (with If-Match, the first is the check's, before the write).
    const besideWrite = () => injector.calls.findLastIndex((_, i) => readsStats(i)) + 1;

    const first = await put('first', await tag());
    expect(first.statusCode, first.body).toBe(200);
    const dryTag = await tag();
    injector.arm();
    expect((await put('second', dryTag)).statusCode).toBe(200);
    const n = besideWrite();
    expect(n, `the calls of a PUT: ${injector.calls.join(', ')}`).toBeGreaterThan(0);

    const throttling = faults.find((f) => f.name === 'throttling')!;
    const faultedTag = await tag();
    injector.arm(n, throttling);
    const before = injector.injected;
    const res = await put('third', faultedTag);
    injector.disarm();
    expect(injector.injected - before, 'the fault struck').toBe(1);
    expect(readsStats(n - 1), `call ${n} reads the stats: ${injector.calls.join(', ')}`).toBe(true);
    expect(injector.inFlight).toBe(0);
    expect(res.statusCode, res.body).toBe(200);
    const answered = JSON.parse(res.body).data;
    expect(answered.description).toBe('third');

    // What it answered is the project as a read finds it: the same stats (the fixture's include what the stream keeps beside
    // the project's item, which only the failed read brings) and the same entity tag.
    const kept = await readKeptStats(fixture.ws, fixture.project);
    expect(
      Object.values(kept?.delta ?? {}).some((n) => n !== 0),
      'the fixture has stats kept beside its item',
    ).toBe(true);
    const after = await read();
    expect(JSON.parse(after.body).data).toEqual(answered);
    expect(res.headers?.ETag).toBe(after.headers?.ETag);
  },
);
