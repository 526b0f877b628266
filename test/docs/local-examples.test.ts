import { test } from 'vitest';
import { sectionSteps } from '#support/docExamples';
import { expectAnswers, expectPageStandsAlone, walkPage } from '#support/docPages';

test('every shell example of docs/local.md, pasted in order into a fresh npm start', async () => {
  const steps = sectionSteps('docs/local.md', 'The local stack');
  expectPageStandsAlone('docs/local.md', steps);
  expectAnswers(await walkPage(steps));
});
