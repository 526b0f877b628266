import { test } from 'vitest';
import { sectionSteps } from '#support/docExamples';
import { expectAnswers, expectPageStandsAlone, walkPage } from '#support/docPages';

test('every shell example of docs/events.md, pasted in order into a fresh npm start', async () => {
  const steps = sectionSteps('docs/events.md', 'Events');
  expectPageStandsAlone('docs/events.md', steps);
  expectAnswers(await walkPage(steps));
});
