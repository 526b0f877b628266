import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { routes } from '#http/routes';
import { apiUrl, workspaceClient } from '#support/api';

/**
 * The reference page npm start serves at /docs, in a real browser (Chromium, headless), as a new user
 * meets it: it renders every operation with its summary, shows `company_slug` as the first and a
 * required query parameter and the paging parameters as integers, and Authorize then Try it out and
 * Execute answer 200 with the workspace's data.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Headless as root, and quiet: no first-run work, no calls to the network this machine does not reach.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install chromium, as .ci/run does), or set CHROMIUM_PATH.`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  page = await browser.newPage();
});

afterAll(async () => {
  await browser?.close();
});

/** The row of a parameter in an expanded operation. */
const parameter = (operation: string, name: string) => page.locator(`#operations-${operation} tr[data-param-name="${name}"]`);

describe('Swagger UI at /docs', () => {
  test('renders every operation with its summary; Authorize, Try it out and Execute list the projects', async () => {
    const c = await workspaceClient('ui');
    expect((await c.post('/projects', { name: 'Browser Tour' })).status).toBe(201);

    await page.goto(`${apiUrl()}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBe(routes.length);
    await expect(page.locator('#operations-projects-list-projects .opblock-summary-description').textContent()).resolves.toBe(
      'List projects, by status, or find one by name',
    );

    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input').fill(c.token);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('button.btn-done').click();

    await page.locator('#operations-projects-list-projects .opblock-summary').click();
    await page.locator('#operations-projects-list-projects button.try-out__btn').click();
    // company_slug is the first query parameter, and marked required; limit is an integer from 1 to 100.
    const rows = page.locator('#operations-projects-list-projects tr[data-param-name]');
    expect(await rows.first().getAttribute('data-param-name')).toBe('company_slug');
    expect(await rows.first().getAttribute('data-param-in')).toBe('query');
    expect(await rows.first().locator('.parameter__name.required').count()).toBe(1);
    await expect(parameter('projects-list-projects', 'limit').locator('.parameter__type').textContent()).resolves.toMatch(/^integer/);
    await parameter('projects-list-projects', 'company_slug').locator('input').fill(c.ws);
    await parameter('projects-list-projects', 'limit').locator('input').fill('5');
    await page.locator('#operations-projects-list-projects button.execute').click();

    const live = page.locator('#operations-projects-list-projects .live-responses-table');
    await live.locator('tr.response .response-col_status').first().waitFor();
    await expect(live.locator('tr.response .response-col_status').first().textContent()).resolves.toMatch(/^200/);
    await expect(live.locator('.microlight').first().textContent()).resolves.toContain('"slug": "browser-tour"');
    // The request Swagger UI made carried the token and the workspace, as a curl line shows it.
    await expect(page.locator('#operations-projects-list-projects .curl-command').textContent()).resolves.toMatch(
      new RegExp(`company_slug=${c.ws}&limit=5.*Authorization: Bearer ${c.token}`, 's'),
    );
  });

  test('Execute with company_slug emptied is stopped by the page itself: the parameter is required', async () => {
    await page.goto(`${apiUrl()}/docs#/projects/get-project`);
    const op = page.locator('#operations-projects-get-project');
    await op.locator('.opblock-summary').waitFor();
    if (!(await op.locator('button.try-out__btn').isVisible())) await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    await parameter('projects-get-project', 'slug').locator('input').fill('browser-tour');
    // The page offers the example workspace (acme-corp): emptied, Execute must refuse to send.
    await parameter('projects-get-project', 'company_slug').locator('input').fill('');
    await op.locator('button.execute').click();
    await parameter('projects-get-project', 'company_slug').locator('input.invalid').waitFor();
    expect(await op.locator('.live-responses-table').count()).toBe(0);
  });
});
