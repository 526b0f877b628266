import { test } from 'vitest';
import { sectionSteps } from '#support/docExamples';
import { expectAnswers, walkPage } from '#support/docPages';

test('every endpoint of docs/api.md, pasted in order into a fresh npm start', async () => {
  expectAnswers(await walkPage(sectionSteps('docs/api.md', 'Endpoints')));
});
