import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestProject } from './support/cli.ts';
import { root } from './support/paths.ts';
import { copyReports } from './support/reports.ts';
import { makeServedProject, serve, type Served } from './support/server.ts';

/**
 * The web page in a real browser: Debian's chromium driven by playwright-core. Skipped with a message
 * when chromium is absent on a developer machine; in CI (CI=true) a missing chromium is a failure.
 */

const CHROMIUM = process.env.CITA_CHROMIUM ?? '/usr/bin/chromium';
const present = fs.existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
/** Outside git (.cita/ is ignored), so a test run leaves the tree clean. */
export const SCREENSHOT = process.env.CITA_SCREENSHOT ?? path.join(root, '.cita/screenshots/web-answer.png');

if (!present && !inCi) {
  process.stderr.write(`browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium, or set CITA_CHROMIUM)\n`);
}

describe.skipIf(!present && !inCi)('web page in chromium', () => {
  let p: TestProject;
  let s: Served;
  let context: BrowserContext;
  let profile: string;
  beforeAll(async () => {
    if (!present) throw new Error(`chromium is required in CI but ${CHROMIUM} does not exist: apt-get install -y chromium`);
    p = makeServedProject();
    copyReports(p.dir);
    s = await serve(p);
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cita-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1100, height: 1400 },
    });
  });
  afterAll(async () => {
    await context?.close();
    await s?.stop();
    p?.cleanup();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it('asks a question, shows the cited answer, route, slots and chunks, and opens a citation', async () => {
    const page = await context.newPage();
    const external: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(s.url)) external.push(req.url());
    });
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(s.url);
    await expect.poll(() => page.locator('#instance option').count()).toBe(2);
    await page.selectOption('#instance', 'demo');
    await page.getByLabel(/Question/).fill('How do I skip a test on Windows?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('#result').waitFor({ state: 'visible' });

    expect(await page.locator('#answer').textContent()).toMatch(/^According to .*skipif/s);
    expect(await page.locator('#route-top').textContent()).toMatch(/Favoured: docs/);
    expect(await page.locator('#slots-chart rect').count()).toBe(3);
    expect(await page.locator('#slots-caption').textContent()).toMatch(/^proportional: docs \d+/);
    expect(await page.locator('#blocks tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#blocks tbody tr').first().textContent()).toMatch(/docs\/guide\.md/);

    // A marker in the answer opens its source: the snippet and the GitHub permalink.
    await page.locator('#answer button.marker').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.locator('#citation-title').textContent()).toMatch(/^\[1\] docs\/guide\.md:\d+-\d+$/);
    expect(await dialog.locator('#citation-snippet').textContent()).toContain('skipif');
    expect(await dialog.getByRole('link', { name: 'Open on GitHub' }).getAttribute('href')).toMatch(
      /^https:\/\/github\.com\/acme\/widgets\/blob\/v1\.0\/docs\/guide\.md#L\d+-L\d+$/,
    );
    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);

    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The list of sources opens the same dialog.
    await page.locator('#citations button.cite').first().click();
    await dialog.waitFor({ state: 'visible' });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // English over English sources: nothing to gloss. A Spanish question: its English quotes, glossed beside the answer.
    expect(await page.locator('#glosses').textContent()).toBe('');
    await page.getByLabel(/Question/).fill('¿Cómo omito un test en Windows?');
    await page.getByRole('button', { name: 'Ask' }).click();
    // The server's first Spanish question also opens the model that translates it (checksum, load): seconds, not one.
    await expect.poll(() => page.locator('#answer').textContent(), { timeout: 30_000 }).toMatch(/^Según/);
    expect(await page.locator('#glosses p').textContent()).toMatch(/^Traducción automática de las citas .*\(apertium\)$/);
    expect(await page.locator('#glosses li').count()).toBeGreaterThan(0);
    expect(await page.locator('#glosses li').first().textContent()).toMatch(/^\[\d+\] \S/);
    expect(await page.locator('#glosses').getAttribute('lang')).toBe('es');

    expect(external).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('links only http(s) URLs: a javascript: URL in an answer is shown as text, never as a link', async () => {
    const page = await context.newPage();
    const citation = { marker: 1, collection: 'issues', path: '#7', startLine: 1, endLine: 2, headings: null, symbol: null, issue: 7, snippet: 'Widgets flicker.', verified: true };
    const ask = {
      language: 'en',
      answer: { text: 'Widgets flicker on resize [1].', generator: 'extractive', noAnswer: false, unsupported: [], citations: [{ ...citation, url: 'javascript:alert(document.domain)' }] },
      route: { top: 'issues', language: 'en', reasons: ['issue reference'], weights: [{ collection: 'issues', weight: 1 }], issueLookups: [7], symbolLookups: [] },
      fusionMethod: 'proportional',
      slots: [{ collection: 'issues', slots: 1, fit: 1 }],
      blocks: [{ marker: 1, title: 'Issue #7', text: 'Widgets flicker.', cut: null, citation: { collection: 'issues', path: '#7', startLine: 1, endLine: 2, issue: 7, url: ' JavaScript:alert(1)' }, scores: { bm25: null, dense: null, fused: 1, via: 'lookup' } }],
      timings: [],
    };
    // The server never sends such a URL (tested in server-faults): the page must not trust that.
    await page.route(`${s.url}/graphql`, (route) =>
      /\bask\(/.test(route.request().postData() ?? '') ? route.fulfill({ json: { data: { ask } } }) : route.continue(),
    );
    await page.goto(s.url);
    await expect.poll(() => page.locator('#instance option').count()).toBe(2);
    await page.getByLabel(/Question/).fill('What is issue #7 about?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('#result').waitFor({ state: 'visible' });
    expect(await page.locator('#citations').textContent()).toContain('javascript:alert(document.domain)');
    await page.locator('#blocks button.cite').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.locator('#citation-link').isHidden()).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.locator('#answer button.marker').first().click();
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.locator('#citation-link').isHidden()).toBe(true);
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(hrefs.filter((h) => !/^https?:/i.test(h ?? ''))).toEqual([]);
  });

  it('shows an error the user can act on', async () => {
    const page = await context.newPage();
    await page.goto(s.url);
    await expect.poll(() => page.locator('#instance option').count()).toBe(2);
    await page.selectOption('#instance', 'empty');
    await page.getByLabel(/Question/).fill('anything');
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/no index yet.*\(INDEX_NOT_READY\)/);
  });

  it('lists the reports with their verdicts and opens one in place; shows the index state', async () => {
    const page = await context.newPage();
    const external: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(s.url)) external.push(req.url());
    });
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(s.url);
    await page.getByRole('button', { name: 'Reports' }).click();
    const rows = page.locator('#reports tbody tr');
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.first().getAttribute('data-report')).toBe('baseline');
    expect(await page.locator('#reports tr[data-report="visible-vs-baseline"] .verdict').textContent()).toBe('FAIL (4 regressions)');
    expect(await page.locator('#reports tr[data-report="ab-fusion"] .verdict').textContent()).toMatch(/^B better on 0, worse on 2, same on 10/);
    expect(await page.locator('#view-ask').isHidden()).toBe(true);

    // Opened in place: the HTML report in a frame of the page.
    await page.locator('#reports tr[data-report="ab-fusion"] button').click();
    await page.locator('#report-frame').waitFor({ state: 'visible' });
    const frame = page.frameLocator('#report-frame');
    await expect.poll(() => frame.locator('h1').textContent()).toBe('cita evaluation report: A/B comparison · pytest');
    expect(await page.locator('#report-title').textContent()).toMatch(/^ab-fusion — B better on 0/);
    // A report without HTML shows its Markdown.
    await page.locator('#reports tr[data-report="visible-vs-baseline"] button').click();
    await page.locator('#report-text').waitFor({ state: 'visible' });
    expect(await page.locator('#report-text').textContent()).toBe(fs.readFileSync(path.join(p.dir, 'reports/visible-vs-baseline.md'), 'utf8'));
    expect(await page.locator('#report-frame').isHidden()).toBe(true);
    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-reports.png'), fullPage: true });

    await page.getByRole('button', { name: 'Index' }).click();
    const demo = page.locator('#index-state tr[data-instance="demo"]');
    await demo.waitFor({ state: 'visible' });
    const cells = await demo.locator('td').allTextContents();
    expect(Number(cells[0])).toBeGreaterThan(0);
    expect(Number(cells[0])).toBe(Number(cells[1]) + Number(cells[2]) + Number(cells[3]));
    expect(cells[4]).toMatch(/multilingual-e5-small/);
    expect(cells[5]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(cells[7]).toContain('none');
    expect(await page.locator('#index-state tr[data-instance="empty"] td').first().textContent()).toBe('not indexed');

    expect(external).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('follows a running index job: its phase and progress, until it ends', async () => {
    const page = await context.newPage();
    const instance = (job: unknown) => ({
      name: 'demo', indexed: true, model: 'intfloat/multilingual-e5-small@test', lastIndexed: '2026-12-01T00:00:00.000Z', storeKind: 'sqlite',
      totalChunks: 6, chunks: [{ collection: 'docs', chunks: 3 }, { collection: 'code', chunks: 2 }, { collection: 'issues', chunks: 1 }], job,
    });
    // The job's progress as the API reports it: running, then done (the page asks again while one
    // runs). The first answer goes to the question form's repository list, at load.
    const answers = [
      instance(null),
      instance({ id: 'j1', state: 'running', phase: 'embed', done: 5, total: 20 }),
      instance({ id: 'j1', state: 'running', phase: 'embed', done: 15, total: 20 }),
      instance(null),
    ];
    let asked = 0;
    await page.route(`${s.url}/graphql`, (route) =>
      /\binstances\b/.test(route.request().postData() ?? '') ? route.fulfill({ json: { data: { instances: [answers[Math.min(asked++, answers.length - 1)]] } } }) : route.continue(),
    );
    await page.goto(s.url);
    await page.getByRole('button', { name: 'Index' }).click();
    const job = page.locator('#index-state tr[data-instance="demo"] td.job');
    await expect.poll(() => job.textContent()).toContain('running (embed): 5 / 20 (25%)');
    expect(await job.locator('progress').getAttribute('value')).toBe('5');
    await expect.poll(() => job.textContent(), { timeout: 15_000 }).toContain('running (embed): 15 / 20 (75%)');
    await expect.poll(() => job.textContent(), { timeout: 15_000 }).toBe(' none');
    expect(await page.locator('#index-status').textContent()).toMatch(/^Read at /);
  });
});
