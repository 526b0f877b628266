import { describe, expect, test } from 'vitest';
import { overLambdaPayload } from '#local/payloadLimit';

/** The local gateway answers as a deployment does when a function's answer is over Lambda's 6 MB: a 502 (lib/local/gateway.ts). */
describe("an answer over Lambda's payload limit", () => {
  const answer = (bytes: number) => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(bytes) });

  test('is returned as it is under the limit, the whole proxy result counted', () => {
    expect(overLambdaPayload(answer(6 * 1024 * 1024 - 200))).toBeUndefined();
    expect(overLambdaPayload(answer(6 * 1024 * 1024 - 40))).toBeInstanceOf(Error);
  });

  test('is refused over it, saying its size and the limit', () => {
    expect(String(overLambdaPayload(answer(6 * 1024 * 1024)))).toMatch(/The answer is \d+ bytes as JSON; Lambda refuses one over 6291456/);
  });
});
