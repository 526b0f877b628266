import { test } from 'vitest';
import { sectionSteps } from '#support/docExamples';
import { expectAnswers, expectPageStandsAlone, walkPage } from '#support/docPages';

test('every shell example of docs/operations.md, pasted in order into a fresh npm start', async () => {
  const steps = sectionSteps('docs/operations.md', 'Operations');
  expectPageStandsAlone('docs/operations.md', steps);
  expectAnswers(await walkPage(steps));
});
