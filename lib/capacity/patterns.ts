import { WORKLOAD } from './scenarios.ts';

/**
 * How the capacity model names keys: a key (and item) with its values replaced by what they stand for,
 * so the requests of one route sum on one pattern whatever their workspace, project or label.
 */
const NAMES: Record<string, string> = {
  LABELTITLE: 'title',
  TASKSTATE: 'task',
  SPRINTSTATE: 'sprint',
  MEMBER: 'member',
  DETACHED: 'note',
  USE: 'label',
  LABELSET: 'label',
  COPYNAME: 'name',
  PAYLOAD: 'delivery',
  PROJECTID: 'project',
  MARKS: 'shard',
  WS: 'ws',
  STATS: 'slug',
};

/**
 * A key (and item) with its values replaced by what they stand for: `PROJECT#<project>`,
 * `LABEL#<ws>#<label>`, `TASK#<task>#LABEL#<label>`; upper-case parts (COUNTER#LABEL_ID) stay.
 */
export function patternOf(text: string): string {
  let name = '';
  let afterValue = false;
  return text
    .split('#')
    .map((part) => {
      if (/^[A-Z_]+$/.test(part)) {
        name = part;
        afterValue = false;
        return part;
      }
      if (part === WORKLOAD.workspace) return '<ws>';
      const placeholder = afterValue ? 'id' : (NAMES[name] ?? name.toLowerCase());
      afterValue = true;
      return `<${placeholder}>`;
    })
    .join('#');
}
