/**
 * Whether JSON `text` nests objects and arrays deeper than `limit`: one pass over the characters,
 * no recursion, so a body of tens of thousands of `[` is refused before anything walks it (a
 * recursive walk of such a value would overflow the stack). Text that is not JSON may pass: the
 * parser refuses it next.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
