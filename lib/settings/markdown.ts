import { SETTINGS, type Setting } from './table';

/**
 * The settings table as docs/local.md shows it, between its markers (a test holds the page to it: when
 * the table changes, paste what the test's failure shows).
 */
export const SETTINGS_BEGIN = '<!-- settings: lib/settings/table.ts -->';
export const SETTINGS_END = '<!-- end of settings -->';

const cell = (text: string) => text.replaceAll('|', '\\|');

export function settingsMarkdown(): string {
  const rows = Object.entries(SETTINGS).map(([name, s]: [string, Setting]) => {
    const accepts = `${s.rule.accepts}${s.empty === 'refused' ? '; not empty' : ''}`;
    return `| \`${name}\` | ${cell(s.unset)} | ${cell(accepts)} | ${cell(s.meaning)} |`;
  });
  return [SETTINGS_BEGIN, '| variable | when unset | accepts | meaning |', '|---|---|---|---|', ...rows, SETTINGS_END].join('\n');
}
