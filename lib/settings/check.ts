import { quoted } from '#domain/quoted';
import { didYouMean } from '#lib/didYouMean';
import { Refusal } from './rules';
import { SETTINGS, type Env, type Setting, type SettingName } from './table';

/**
 * The settings checked against their table (table.ts): each refused value, and each valid one that
 * is not used, as one sentence naming the setting, the value given and what it accepts.
 */
export interface SettingProblem {
  /** The setting, or the variable that looks like one and is none. */
  setting: SettingName | (string & {});
  /** error: the value is wrong, nothing starts; warning: valid, but not used. */
  severity: 'error' | 'warning';
  message: string;
}

type ValueOf<K extends SettingName> = (typeof SETTINGS)[K] extends Setting<infer T> ? T : never;

/** The value a setting stands for, undefined when unset, or the sentence that refuses it. */
function read<K extends SettingName>(name: K, env: Env): { value: ValueOf<K> | undefined } | { refused: string } {
  const s = SETTINGS[name] as Setting<ValueOf<K>>;
  const text = env[name];
  if (text === undefined || (text === '' && s.empty === 'unset')) return { value: undefined };
  const fix = `use ${s.rule.accepts}, or unset it (then ${s.unset}).`;
  if (text === '') return { refused: `${name} is set but empty: ${fix}` };
  const value = s.rule.read(text);
  if (value instanceof Refusal) return { refused: `${name} is ${quoted(text)}${value.why ? ` (${value.why})` : ''}: ${fix}` };
  return { value };
}

/**
 * The first words of the settings' names that no other software's settings share: a variable that begins
 * with one but is no setting is a misspelt one (`WEBHOOK_ALLOW_PRIVATE_TARGETS`), which would otherwise
 * change nothing in silence.
 */
const OWN_PREFIXES = ['WEBHOOK_', 'WEBHOOKS_', 'DYNAMODB_', 'ACTIVITY_', 'CURSOR_', 'AUTHORIZER_', 'CORS_'];

/** A variable of `env` that looks like a setting and is none: a warning naming the settings it is nearest. */
function unknownSettings(env: Env): SettingProblem[] {
  const names = Object.keys(SETTINGS) as SettingName[];
  return Object.keys(env)
    .filter((name) => !(name in SETTINGS) && OWN_PREFIXES.some((prefix) => name.startsWith(prefix)))
    .sort()
    .map((name) => {
      return {
        setting: name,
        severity: 'warning' as const,
        message: `${name} is not a setting of this service, so it changes nothing (${didYouMean(name, names) ?? 'docs/local.md lists the settings'}).`,
      };
    });
}

/** Every problem of the settings in `env`, errors first, in the table's order; then variables that look like settings and are none. */
export function checkSettings(env: Env): SettingProblem[] {
  const errors: SettingProblem[] = [];
  const warnings: SettingProblem[] = unknownSettings(env);
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const result = read(name, env);
    if ('refused' in result) errors.push({ setting: name, severity: 'error', message: result.refused });
    else if (result.value !== undefined) {
      const why = (SETTINGS[name] as Setting).ignored?.(env);
      if (why) warnings.push({ setting: name, severity: 'warning', message: `${name} is set, but ${why}.` });
    }
  }
  return [...errors, ...warnings];
}

/**
 * For a local module that reads a setting: its value, or undefined when unset; a refused value ends
 * the process with its sentence (npm start has refused it already; a tool that reads it alone says so).
 */
export function settingValue<K extends SettingName>(name: K, env: Env = process.env): ValueOf<K> | undefined {
  const result = read(name, env);
  if ('refused' in result) {
    console.error(result.refused);
    process.exit(1);
  }
  return result.value;
}

/**
 * Every tool's first step (lib/cli.ts): with any refused value, its sentences on stderr and exit 1,
 * nothing done. `npm start` also says which valid values it does not use (`warnings`); the other tools
 * use fewer of the settings and say nothing of those.
 */
export function refuseBadSettings(env: Env = process.env, opts: { warnings: boolean } = { warnings: true }): void {
  const problems = checkSettings(env).filter((p) => opts.warnings || p.severity === 'error');
  for (const p of problems) console.error(p.message);
  if (problems.some((p) => p.severity === 'error')) process.exit(1);
}
