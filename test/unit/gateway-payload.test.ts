import { describe, expect, test } from 'vitest';
import { type Reached, withinLambdaPayload } from '#local/gateway';

/** The local gateway answers as a deployment does when a function's answer is over Lambda's 6 MB: a 502. */
describe("an answer over Lambda's payload limit", () => {
  const answer = (bytes: number) => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(bytes) });

  test('is answered as it is under the limit', () => {
    const reached: Reached = { function: true };
    const result = answer(6 * 1024 * 1024 - 200);
    expect(withinLambdaPayload(result, 'r-1', reached)).toBe(result);
    expect(reached.failure).toBeUndefined();
  });

  test('is a 502 problem over it, and the gateway logs why', () => {
    const reached: Reached = { function: true };
    const res = withinLambdaPayload(answer(6 * 1024 * 1024), 'r-2', reached);
    expect(res.statusCode).toBe(502);
    expect(JSON.parse(res.body)).toMatchObject({ status: 502, code: 'bad_gateway', request_id: 'r-2' });
    expect(reached.failure?.message).toBe('function answer too large');
    expect(String(reached.failure?.error)).toMatch(/Lambda refuses one over 6291456/);
  });
});
