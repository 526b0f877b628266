import { vi } from 'vitest';

/**
 * The clock, `minutes` on from the real one (a deploy's window is 15, store/deployWindow.ts): Date.now mocked, every
 * other mock restored first. The test file restores it after (vi.restoreAllMocks).
 */
export function clockAt(minutes: number): void {
  vi.restoreAllMocks();
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + minutes * 60_000);
}
