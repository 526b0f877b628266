import { expect, test } from 'vitest';
import { sectionSteps } from '#support/docExamples';
import { expectAnswers, walkPage } from '#support/docPages';

// Every answer must have the status and the pieces of body the page shows; a renamed field, a changed
// status or a reordered walkthrough fails here (test/support/docPages.ts runs the page).
test('the README’s walkthrough, pasted in order into a fresh npm start', async () => {
  const steps = sectionSteps('README.md', 'Five minutes with the API');
  expect(steps.filter((s) => /^\s*curl\b/.test(s.command)).length).toBeGreaterThanOrEqual(12);
  expect(steps.some((s) => s.background)).toBe(true);
  expectAnswers(await walkPage(steps));
});
