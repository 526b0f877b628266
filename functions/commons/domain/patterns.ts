/**
 * A regular expression built at its first use, from its source text. V8 checks a regular expression
 * literal as it reads the module, even inside a function never called, and a Unicode property class
 * (`\p{Cc}`) makes it load ICU's property tables: about a millisecond of every cold start, paid by
 * routes that never test one. Built from a string, the check waits for the first call.
 */
export function builtOnUse(source: string, flags: string): () => RegExp {
  let built: RegExp | undefined;
  return () => (built ??= new RegExp(source, flags));
}
