import { parseArgs } from 'node:util';
import { didYouMean } from '#lib/didYouMean';
import { npmTookSentence, optionsNpmTook } from '#lib/npmArguments';
import { refuseBadSettings } from '#lib/settings/check';

/**
 * What every command-line tool of the project (bin/) does with its arguments and its mistakes, in one
 * place: `--help` (or `-h`) prints the usage and exits 0 having done nothing else; an option it does
 * not know, an option without its value, or a wrong number of arguments is one sentence and the usage
 * on stderr and exit 2, before the tool prints or does anything; before those, a setting of the
 * environment with a value its table refuses (lib/settings/table.ts) is its sentence and exit 1, as
 * `npm start` says it; any later mistake is one sentence, never a stack trace. A mistyped option is
 * answered with the nearest the tool knows ("did you mean", lib/didYouMean.ts), and options npm kept for
 * itself (given before `--`: lib/npmArguments.ts) with the command as it should have been typed.
 */

/** A tool's options, by name (without the dashes): those that take a value, and flags. */
type Options = Record<string, 'string' | 'boolean'>;

type Values<O extends Options> = { [K in keyof O]?: O[K] extends 'boolean' ? boolean : string };

interface CliSpec<O extends Options> {
  /** Printed for --help and after a usage mistake; a function when it needs modules loaded only then. */
  usage: string | (() => Promise<string>);
  options?: O;
  /** The arguments it takes besides options (none unless given), and what they are, for the sentence. */
  args?: { min: number; max: number; what: string };
  /** `npm start` says of the settings it does not use as well (warnings); the other tools only refuse. */
  settingWarnings?: true;
}

/** The tool's options and arguments, or (for --help or a mistake) the process ends here. */
export async function cliArguments<const O extends Options = Record<never, never>>(
  spec: CliSpec<O>,
): Promise<{ values: Values<O>; positionals: string[] }> {
  const args = process.argv.slice(2);
  const beforeTerminator = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  const usage = async () => (typeof spec.usage === 'string' ? spec.usage : spec.usage());
  if (beforeTerminator.includes('--help') || beforeTerminator.includes('-h')) {
    console.log(await usage());
    process.exit(0);
  }
  refuseBadSettings(process.env, { warnings: spec.settingWarnings === true });
  const options = (spec.options ?? {}) as Options;
  const mistake = (sentence: string) => usage().then((text) => usageError(sentence, text));
  const took = optionsNpmTook(options, process.env, process.argv[1]);
  if (took.length) {
    const first = args.find((a) => !a.startsWith('-'));
    await mistake(npmTookSentence(took, options, first, process.env.npm_lifecycle_event ?? '<script>'));
  }
  const { tokens } = parseArgs({
    args,
    options: Object.fromEntries(Object.entries(options).map(([name, type]) => [name, { type }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const type = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (type === undefined) {
      const known = Object.keys(options);
      const near = token.rawName.startsWith('--') ? didYouMean(token.name, known, (name) => `--${name}`) : undefined;
      await mistake(
        `Unknown option ${token.rawName}: ${near ?? (known.length ? 'use only the options the usage below names.' : 'this command takes no options.')}`,
      );
    } else if (type === 'boolean') {
      if (token.value !== undefined) await mistake(`${token.rawName} takes no value: give it alone.`);
      values[token.name] = true;
    } else if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      await mistake(`${token.rawName} needs a value: give it as ${token.rawName} <value>.`);
    } else values[token.name] = token.value!;
  }
  const { min, max, what } = spec.args ?? { min: 0, max: 0, what: 'no arguments' };
  if (positionals.length > max) {
    const extra = positionals.slice(max).map((p) => `"${p}"`);
    await mistake(`Unexpected argument${extra.length > 1 ? 's' : ''} ${extra.join(' ')}: this command takes ${what}.`);
  }
  if (positionals.length < min) await mistake(`Missing argument: this command takes ${what}.`);
  return { values: values as Values<O>, positionals };
}

/** A mistake in how the tool was called: one sentence, then the usage, on stderr; exit 2. */
export function usageError(sentence: string, usage: string): never {
  console.error(`${sentence}\n${usage}`);
  process.exit(2);
}

/** One sentence on stderr saying what is wrong and what to do, and exit 1. */
export function cliError(message: string): never {
  console.error(message);
  process.exit(1);
}

/**
 * For a tool's top level: an error nothing else caught (an AWS error, a file it could not read) is its
 * message on stderr and exit 1, never a stack trace; `cleanup` runs first (e.g. invoke's sandbox table).
 */
export function exitPlainlyOnError(cleanup: () => Promise<unknown> = async () => undefined): void {
  const report = (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    void cleanup()
      .catch(() => undefined)
      .finally(() => process.exit(1));
  };
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
}
