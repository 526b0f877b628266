/**
 * Stands in for `node:stream/web` in the Lambda bundles (lib/cdk/bundling.ts aliases it here).
 * @middy/core imports `ReadableStream` from it only to recognise a streamed response with
 * `instanceof`, and importing the real module loads Node's web streams (eight internal modules)
 * at every cold start, for a feature the service never uses. This class answers `instanceof` as the
 * real one does, reaching Node's global `ReadableStream` (and loading it) only when asked.
 * Any other import of `node:stream/web` fails the build, so nothing can depend on it unnoticed.
 */
export class ReadableStream {
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }
}
