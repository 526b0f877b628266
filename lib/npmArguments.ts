import { basename } from 'node:path';

/**
 * `npm run token create --name Ada` without `--`: npm reads every option before `--` as a setting of its
 * own and does not pass it on. Those it knows it acts on (--workspace and -w: "No workspaces found",
 * before the tool starts; --help: npm's help; --verbose: npm's log level); any other it puts in the
 * script's environment as `npm_config_<name>` (`--no-<name>`: empty), taking the next argument as its
 * value or leaving it to the tool as an argument. This finds the tool's own options there, when npm ran
 * this very tool (its script runs the tool's file), so that the tool can say what happened.
 */

type Options = Record<string, 'string' | 'boolean'>;

/** The tool's options npm kept for itself (`--name`, `--no-expiry`), in the order the tool declares them. */
export function optionsNpmTook(options: Options, env: NodeJS.ProcessEnv, toolFile: string | undefined): string[] {
  const script = env.npm_lifecycle_script;
  const tool = toolFile ? basename(toolFile).replace(/\.[cm]?[jt]s$/, '') : undefined;
  if (!script || !tool || !script.includes(`bin/${tool}.ts`)) return [];
  const setting = (name: string) => env[`npm_config_${name.replaceAll('-', '_')}`];
  return Object.entries(options).flatMap(([name, type]) => {
    if (setting(name) !== undefined) return [`--${name}`];
    // npm reads `--no-expiry` as the setting `expiry` turned off.
    if (type === 'boolean' && name.startsWith('no-') && setting(name.slice(3)) === '') return [`--${name}`];
    return [];
  });
}

/** The sentence for them: what npm did, and the command with `--` in its place. */
export function npmTookSentence(took: string[], options: Options, firstArgument: string | undefined, script: string): string {
  const named = took.length > 1 ? `${took.slice(0, -1).join(', ')} and ${took.at(-1)}` : took[0];
  const shown = took.map((o) => (options[o.slice(2)] === 'string' ? `${o} ...` : o));
  return `npm took ${named} for itself: put \`--\` before the tool's arguments: npm run ${script} -- ${[firstArgument, ...shown].filter(Boolean).join(' ')}`;
}
