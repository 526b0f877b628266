import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import { LogLevel } from '@aws-lambda-powertools/logger';
import type { DeliverySetting } from '#webhooks/settings';

/**
 * How a setting may be written: what a rule accepts (said in the sentence that refuses a value) and
 * what a value stands for. Values are read as written: no spaces around them, no case folded, unless
 * the code that reads the setting does so itself (Powertools' booleans, the webhook durations).
 */
export interface Rule<T = unknown> {
  /** What it accepts, as the end of a sentence says it: "a whole number from 1 to 65535". */
  accepts: string;
  /** The value the text stands for, or a Refusal. */
  read(text: string): T | Refusal;
}

/** A value a rule refuses, with what is wrong with it when the rule alone does not say (e.g. "a folder"). */
export class Refusal {
  constructor(readonly why = '') {}
}

export function wholeNumber(min: number, max: number, accepts = `a whole number from ${min} to ${max}`): Rule<number> {
  return {
    accepts,
    read: (text) => {
      if (!/^\d{1,15}$/.test(text)) return new Refusal();
      const n = Number(text);
      if (n > max) return new Refusal(`above ${max}`);
      return n < min ? new Refusal(`below ${min}`) : n;
    },
  };
}

/** A TCP port, as the API and DynamoDB Local listen on it. */
export const port = wholeNumber(1, 65535, 'a port number from 1 to 65535');

export function numberBetween(min: number, max: number, example: string): Rule<number> {
  return {
    accepts: `a number from ${min} to ${max}, e.g. ${example}`,
    read: (text) => {
      if (!/^\d+(\.\d+)?$/.test(text)) return new Refusal();
      const n = Number(text);
      return n >= min && n <= max ? n : new Refusal(n > max ? `above ${max}` : `below ${min}`);
    },
  };
}

const listed = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

export function oneOf<const V extends string>(values: readonly V[], opts: { ignoringCase?: boolean; accepts?: string } = {}): Rule<V> {
  return {
    accepts: opts.accepts ?? (values.length === 2 ? listed(values) : `one of ${listed(values)}`),
    read: (text) => {
      const found = values.find((v) => v === text || (opts.ignoringCase === true && v.toLowerCase() === text.toLowerCase()));
      return found ?? new Refusal();
    },
  };
}

/** Powertools' levels, as its logger takes them from POWERTOOLS_LOG_LEVEL (exactly: upper case). */
export const logLevel = oneOf(Object.keys(LogLevel) as (keyof typeof LogLevel)[]);

/** What Powertools reads as a boolean (POWERTOOLS_METRICS_DISABLED): anything else fails every metrics line. */
export const powertoolsBoolean = oneOf(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 'y', 'n', 't', 'f'], {
  ignoringCase: true,
  accepts: 'true or false (Powertools also reads 1 and 0, yes and no, on and off)',
});

/** A rule the module that reads the setting keeps itself (the webhook durations). */
export function ruleOf<T>(setting: DeliverySetting<T>): Rule<T> {
  return { accepts: setting.accepts, read: (text) => setting.parse(text) ?? new Refusal() };
}

export function matching(pattern: RegExp, accepts: string): Rule<string> {
  return { accepts, read: (text) => (pattern.test(text) ? text : new Refusal()) };
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A path; `kind` is what it must not already be (a file where a folder goes, or the reverse). */
function path(what: 'file' | 'folder'): Rule<string> {
  return {
    accepts: what === 'file' ? 'the path of a file (its folder is made when missing)' : 'the path of a folder (made when missing)',
    read: (text) => {
      if (CONTROL.test(text)) return new Refusal('control characters');
      let found: ReturnType<typeof statSync>;
      try {
        found = statSync(text, { throwIfNoEntry: false });
      } catch (error) {
        return new Refusal(`it cannot be reached: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
      }
      if (what === 'file' && found?.isDirectory()) return new Refusal('a folder');
      if (what === 'folder' && found && !found.isDirectory()) return new Refusal('a file');
      return text;
    },
  };
}

export const filePath = path('file');
export const folderPath = path('folder');

/** An http or https URL: a DynamoDB endpoint. */
export const httpUrl: Rule<string> = {
  accepts: 'an http or https URL, e.g. http://127.0.0.1:8000',
  read: (text) => (URL.canParse(text) && /^https?:$/.test(new URL(text).protocol) ? text : new Refusal()),
};

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const host: Rule<string> = {
  accepts: 'an IP address or a host name, e.g. 127.0.0.1 or localhost',
  read: (text) => (isIP(text) || HOST_NAME.test(text) ? text : new Refusal()),
};

/** CORS_ORIGINS: `*`, or origins as a browser sends them in its Origin header, separated by commas. */
export const origins: Rule<string[]> = {
  accepts: '* or a comma-separated list of origins as a browser sends them (scheme, host and port only, e.g. https://app.example.com)',
  read: (text) => {
    if (text === '*') return ['*'];
    const list = text.split(',');
    for (const origin of list) {
      if (origin === '') return new Refusal('an empty entry');
      const url = URL.canParse(origin) ? new URL(origin) : undefined;
      if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin)
        return new Refusal(`${JSON.stringify(origin)} is not an origin`);
    }
    return list;
  },
};
