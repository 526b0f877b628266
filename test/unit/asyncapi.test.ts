import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { INBOUND_TYPES, OUTBOUND_TYPES } from '#domain/eventNames';
import { parseInbound } from '#events/inbound';
import { ASYNCAPI_FILE, buildAsyncApi } from '#lib/asyncapi/document';
import { EVENT_REFERENCE_FILE, renderEventReference } from '#lib/asyncapi/markdown';
import { repoRoot } from '#lib/paths';
import { messageValidator, outboundMismatches } from '#support/asyncapi';
import { hostileText } from '#support/hostile';

const committed = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

describe('asyncapi.json', () => {
  test('asyncapi.json and docs/event-reference.md are what `npm run asyncapi` writes', () => {
    const doc = buildAsyncApi();
    expect(JSON.parse(committed(ASYNCAPI_FILE))).toEqual(doc);
    expect(committed(EVENT_REFERENCE_FILE)).toBe(renderEventReference(doc));
  });

  test('@asyncapi/parser reads it as AsyncAPI 3.1 without an error or a warning', async () => {
    const { document, diagnostics } = await new Parser().parse(committed(ASYNCAPI_FILE));
    const said = diagnostics
      .filter((d) => d.severity === DiagnosticSeverity.Error || d.severity === DiagnosticSeverity.Warning)
      .map((d) => `${d.code} at ${d.path.join('.')}: ${d.message}`);
    expect(said).toEqual([]);
    expect(document?.version()).toBe('3.1.0');
    // Each outbound type twice (on the bus and as a webhook delivery), the ping, and each inbound type.
    expect(document?.messages().length).toBe(2 * OUTBOUND_TYPES.length + 1 + INBOUND_TYPES.length);
  });

  test('every event type is a message of its channel and of its operation', () => {
    const doc = buildAsyncApi();
    const titles = (channel: string) =>
      Object.values(doc.channels[channel].messages as Record<string, { $ref: string }>).map(
        (ref) => doc.components.messages[ref.$ref.split('/').pop()!].title,
      );
    expect(titles('changes')).toEqual([...OUTBOUND_TYPES]);
    expect(titles('productEvents')).toEqual([...INBOUND_TYPES]);
    expect(doc.operations.publishChange.messages).toHaveLength(OUTBOUND_TYPES.length);
    expect(doc.operations.receiveProductEvent.messages).toHaveLength(INBOUND_TYPES.length);
  });
});

describe('outbound events against their messages', () => {
  const label = { id: 1, slug: 'bug', title: 'Bug', color: 'FF5733' };
  const attached = {
    version: '0',
    id: 'e-1',
    source: 'project-label-service',
    'detail-type': 'Label Attached',
    time: '2026-11-25T10:00:00.000Z',
    detail: {
      event_id: 'e-1',
      company_slug: 'acme-corp',
      occurred_at: '2026-11-25T10:00:00.000Z',
      actor: { username: 'ana' },
      project_slug: 'web',
      task_uuid: 't-1',
      label,
    },
  };

  test('an event as the publisher builds it matches; the checker is not vacuous', () => {
    expect(outboundMismatches([attached])).toEqual([]);
    expect(
      outboundMismatches([{ ...attached, detail: { ...attached.detail, task_uuid: undefined, label: { id: 1, slug: 'bug' } } }]),
    ).toEqual([]);
    const broken = [
      { ...attached, source: 'someone-else' },
      { ...attached, 'detail-type': 'Label Renamed' },
      { ...attached, detail: { ...attached.detail, internal: 1 } },
      { ...attached, detail: { ...attached.detail, label: { ...label, color: 'red' } } },
      { ...attached, detail: { ...attached.detail, occurred_at: '2026-11-25 10:00' } },
      { ...attached, 'detail-type': 'Label Updated', detail: { ...attached.detail, data: label } },
    ];
    expect(outboundMismatches(broken)).toHaveLength(broken.length);
  });
});

describe('inbound events: the document and the consumer agree', () => {
  // Each member: values the consumer takes, values it refuses, hostile text.
  const good = {
    slug: fc.constantFrom('acme-corp', 'web', 'a', 'x'.repeat(64)),
    id: fc.constantFrom('t-1', 'T.1:a_b', 'x'.repeat(128)),
    username: fc.constantFrom('ana@example.com', 'Zoë', '😀'.repeat(100), 'x'.repeat(128), '\uD800'),
    eventId: fc.constantFrom('ev-1', '😀'.repeat(150), 'x'.repeat(200)),
    // Instants inside the accepted window (the window itself is a rule of the consumer's clock).
    instant: fc.oneof(
      fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date(Date.now() - 60_000), noInvalidDate: true })
        .map((d) => d.toISOString()),
      fc.constantFrom('2024-06-01T10:00:00+01:00', '2020-02-29T10:00:00.123456789Z'),
    ),
  };
  const bad = {
    slug: fc.oneof(fc.constantFrom('', 'Acme', '-a', 'a-', 'x'.repeat(65), 7, null), hostileText),
    id: fc.oneof(fc.constantFrom('', '-t', 'x'.repeat(129), 't 1', 7), hostileText),
    username: fc.oneof(fc.constantFrom('', 'x'.repeat(129), '😀'.repeat(129), 'a\u0000b', 'a\u200Bb', ['a']), hostileText),
    eventId: fc.constantFrom('', 'x'.repeat(201), '😀'.repeat(201), 7),
    // Spellings that are no instant (impossible dates of the right spelling are a rule of the clock, like the window).
    instant: fc.constantFrom(
      '2024-06-01',
      '2024-06-01 10:00:00Z',
      'yesterday',
      '2024-06-01T10:00:00',
      '2024-06-01T10:00:00.1234567890Z',
      1_700_000_000,
    ),
  };
  const either = <T>(g: fc.Arbitrary<T>, b: fc.Arbitrary<unknown>) =>
    fc.option(fc.oneof({ weight: 3, arbitrary: g }, b), { nil: undefined });
  const detail = (pick: 'good' | 'any') => {
    const m = <K extends keyof typeof good>(k: K) =>
      pick === 'good' ? fc.option(good[k], { nil: undefined, freq: 3 }) : either(good[k], bad[k]);
    return fc.record(
      {
        event_id: m('eventId'),
        occurred_at: m('instant'),
        company_slug: pick === 'good' ? good.slug : either(good.slug, bad.slug),
        project_slug: pick === 'good' ? good.slug : either(good.slug, bad.slug),
        task_uuid: m('id'),
        username: m('username'),
        sprint_uuid: m('id'),
      },
      { requiredKeys: [] },
    );
  };
  const event = (pick: 'good' | 'any') =>
    fc.record(
      {
        id: fc.option(fc.constantFrom('eb-1', 'eb-2', ''), { nil: undefined }),
        time: pick === 'good' ? fc.option(good.instant, { nil: undefined }) : either(good.instant, bad.instant),
        'detail-type': fc.oneof(
          { weight: 9, arbitrary: fc.constantFrom(...INBOUND_TYPES) },
          fc.constantFrom('Task Renamed', 'Project Created'),
        ),
        detail: detail(pick),
      },
      { requiredKeys: ['detail-type', 'detail'] },
    );
  /** A well-formed event with one member of its detail, or of its envelope, made bad or taken away. */
  const nearMiss = fc
    .tuple(
      event('good'),
      fc.constantFrom('event_id', 'occurred_at', 'company_slug', 'project_slug', 'task_uuid', 'username', 'sprint_uuid', 'time', 'id'),
    )
    .chain(([e, key]) => {
      const badOf: Record<string, fc.Arbitrary<unknown>> = {
        event_id: bad.eventId,
        occurred_at: bad.instant,
        company_slug: bad.slug,
        project_slug: bad.slug,
        task_uuid: bad.id,
        username: bad.username,
        sprint_uuid: bad.id,
        time: bad.instant,
        id: fc.constant(''),
      };
      return fc
        .option(badOf[key]!, { nil: undefined })
        .map((v) => (key === 'time' || key === 'id' ? { ...e, [key]: v } : { ...e, detail: { ...e.detail, [key]: v } }));
    });

  test('an event the schema of its message accepts is one the consumer accepts, and the other way round', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(event('good'), nearMiss, event('any')), (e) => {
        const json = JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
        const schema = messageValidator('productEvents', String(json['detail-type']));
        const bySchema = schema ? schema(json) : false;
        let byConsumer = true;
        try {
          parseInbound(JSON.stringify(json));
        } catch (error) {
          if ((error as Error).name !== 'MalformedEvent') throw error;
          byConsumer = false;
        }
        if (byConsumer) accepted++;
        expect(bySchema, `${JSON.stringify(json)}: schema ${bySchema}, consumer ${byConsumer}`).toBe(byConsumer);
      }),
      { numRuns: 2000, seed: 20261125 },
    );
    console.log(`inbound: 2,000 generated events, ${accepted} accepted and ${2000 - accepted} refused by both the schema and the consumer`);
    expect(accepted).toBeGreaterThan(150);
  });
});
