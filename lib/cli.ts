/**
 * What every command-line tool of the project does with its arguments and its mistakes: `--help`
 * prints the usage and exits 0; an option it does not know, or a mistake, is one sentence on stderr
 * and a non-zero exit, never a stack trace.
 */

/** Prints `usage` and exits 0 when asked for help; refuses options other than `options` (exit 2). */
export function cliArguments(usage: string, options: readonly string[] = []): void {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  const unknown = args.filter((a) => a.startsWith('-') && !options.includes(a));
  if (unknown.length) {
    console.error(`Unknown option ${unknown.join(' ')}.\n${usage}`);
    process.exit(2);
  }
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
