import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '#lib/paths';

/**
 * What docs/api.md says of each endpoint, for the OpenAPI document, so that it is said once. An
 * endpoint's section is its heading `` `METHOD /path`: what it does `` (test/docs/links.test.ts holds
 * every route to one): the operation's summary is that phrase (an action: "list projects"), its
 * description the paragraphs under it, before its example. A tag's description is the paragraphs
 * under the first heading that names it (`### Projects`).
 * A route without a section, or a section or tag with nothing to say, fails the build naming it.
 */
const API_DOC = 'docs/api.md';

interface Heading {
  level: number;
  text: string;
  /** Its index among the page's lines. */
  line: number;
}

/** `[text](target)` with a relative target (it leads nowhere from the OpenAPI document) as its text alone. */
const withoutRelativeLinks = (text: string) =>
  text.replace(/\[([^\]]*)\]\(([^)\s]+)\)/g, (link, label: string, target: string) => (/^[a-z]+:/i.test(target) ? link : label));

/** The paragraphs right under line `from`, up to the first code block or heading; lines of a paragraph joined, list items kept apart. */
function paragraphsAfter(lines: string[], from: number): string[] {
  const paragraphs: string[] = [];
  let current = '';
  for (let i = from + 1; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.startsWith('```') || /^#{1,6}\s/.test(line)) break;
    if (!line) {
      if (current) paragraphs.push(current);
      current = '';
    } else current = current ? `${current}${/^([-*]|\d+\.)\s/.test(line) ? '\n' : ' '}${line}` : line;
  }
  if (current) paragraphs.push(current);
  return paragraphs.map(withoutRelativeLinks);
}

/** The page's headings, outside code blocks. */
function headingsOf(lines: string[]): Heading[] {
  const headings: Heading[] = [];
  let inCode = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = !inCode && /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) headings.push({ level: heading[1]!.length, text: heading[2]!.trim(), line: i });
  });
  return headings;
}

const sentence = (phrase: string) => {
  const text = phrase.charAt(0).toUpperCase() + phrase.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
};

/** Reads docs/api.md (or `markdown`) once; `operation()` describes a route, `tag()` a tag. */
export function apiDocs(markdown = readFileSync(join(repoRoot, API_DOC), 'utf8')) {
  const lines = markdown.split('\n');
  const headings = headingsOf(lines);
  /** The section of a route (`#### \`METHOD /path\`: what it does`) and the phrase after its name. */
  const section = (method: string, path: string) => {
    const name = `\`${method} ${path}\``;
    const found = headings.filter((h) => h.text === name || h.text.startsWith(`${name}:`));
    if (found.length !== 1)
      throw new Error(
        found.length
          ? `${API_DOC} has ${found.length} sections headed ${name}: keep one.`
          : `${API_DOC} has no section for ${method} ${path}: add one to its Endpoints, headed "#### ${name}: what it does", with an example.`,
      );
    return { line: found[0]!.line, phrase: found[0]!.text.slice(name.length).replace(/^:/, '').trim() };
  };
  return {
    /** What the route does, as its heading says it after its name ("list projects"), as a title: "List projects". */
    summary(method: string, path: string): string {
      const { phrase } = section(method, path);
      if (!phrase)
        throw new Error(
          `${API_DOC}: the heading of ${method} ${path} says not what it does ("#### \`${method} ${path}\`: list projects").`,
        );
      return phrase.charAt(0).toUpperCase() + phrase.slice(1).replace(/\.$/, '');
    },
    /** The paragraphs under the route's heading (its phrase, when there are none). */
    operation(method: string, path: string): string {
      const { line, phrase } = section(method, path);
      const paragraphs = paragraphsAfter(lines, line);
      const description = (paragraphs.length ? paragraphs : phrase ? [sentence(phrase)] : []).join('\n\n');
      if (!description)
        throw new Error(`${API_DOC}: the section of ${method} ${path} says nothing of it (a phrase after its heading, or a paragraph).`);
      return description;
    },
    /** The paragraphs under the heading that names the tag (`### Projects` for `projects`). */
    tag(name: string): string {
      const heading = headings.find((h) => h.text.toLowerCase() === name.toLowerCase());
      const description = heading ? paragraphsAfter(lines, heading.line).join('\n\n') : '';
      if (!description)
        throw new Error(`${API_DOC} has no heading "${name}" with a paragraph under it (the description of the tag ${name}).`);
      return description;
    },
  };
}
