import { createRequire } from 'node:module';
import type Ts from 'typescript';

/** TypeScript's compiler, loaded at the first file judged: about 0.6 s of a tool's start that judges none (--help, --list of an unchanged tree). */
let loaded: typeof Ts | undefined;
const typescript = () => (loaded ??= createRequire(import.meta.url)('typescript') as typeof Ts);

/** A source file's code without its comments and layout: the program it is, printed again. */
function codeOf(text: string, fileName: string): string {
  const ts = typescript();
  const kind = /\.[mc]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  // A file that does not parse is not judged: its change counts as a change of code.
  if ((source as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics.length > 0) throw new SyntaxError(fileName);
  return ts.createPrinter({ removeComments: true }).printFile(source);
}

/** Whether a script's change is in its comments and layout alone (the same program before and after): nothing runs differently. */
export function sameCode(before: string, after: string, fileName: string): boolean {
  if (before === after) return true;
  typescript(); // a compiler that does not load is the tool's failure, not a change of code
  try {
    return codeOf(before, fileName) === codeOf(after, fileName);
  } catch {
    return false;
  }
}

/** Files whose changes sameCode can judge: TypeScript and JavaScript sources. */
export const isScript = (path: string) => /\.([mc]?ts|[mc]?js)$/.test(path) && !path.endsWith('.d.ts');
