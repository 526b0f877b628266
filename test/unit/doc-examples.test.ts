import { describe, expect, test } from 'vitest';
import { sectionSteps } from '#support/docExamples';

/** How the documentation's examples are read (test/support/docExamples.ts): what a page must show its reader. */
describe('reading a page of examples', () => {
  const page = (...lines: string[]) => ['## Try', '', '```sh', ...lines, '```', ''].join('\n');

  test('a curl that does not print its status to the reader is refused, naming where', () => {
    expect(() => sectionSteps('x.md', 'Try', page('curl -s "$API/projects"', '# → 200 {"data":[]}'))).toThrow(
      /x\.md:4: a curl example shows the reader its status/,
    );
  });

  test('an answer shown without … at an end is whole at that end', () => {
    const [whole, cut, open] = sectionSteps(
      'x.md',
      'Try',
      page(
        `curl -s -w '\\n→ %{http_code}\\n' "$API/a"`,
        '# → 200 {"data":[]}',
        `curl -s -w '\\n→ %{http_code}\\n' "$API/b"`,
        '# → 200 {"data":[…',
        `curl -s -w '\\n→ %{http_code}\\n' "$API/c"`,
        '# → 404 …"error_code":"NOT_FOUND"…',
      ),
    );
    expect(whole!.whole).toEqual({ start: true, end: true });
    expect(cut!.whole).toEqual({ start: true, end: false });
    expect(open!.whole).toEqual({ start: false, end: false });
    expect(open!.expect).toBe(404);
  });

  test('"# later prints:" adds to what the command running in the background shows', () => {
    const steps = sectionSteps('x.md', 'Try', page('npm run events:follow', '# prints: A … B', 'true', '# later prints: C … D'));
    expect(steps[0]).toMatchObject({ background: true, pieces: ['A', 'B', 'C', 'D'] });
    expect(() => sectionSteps('x.md', 'Try', page('true', '# later prints: C'))).toThrow(/no command running in the background/);
  });
});
