// The memories pages in a real browser against the real service: a memory made from the page (with an
// embedding model the API offers), records added and one replaced, a search with the best match first
// and its score, the memory edited with If-Match, the list filtered by text and label, and the
// service's refusals (a bad label, a stale edit) shown as alerts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { insertModel } from '../helpers/fixtures.js';

let app: ConsoleTestApp;
let t: TestApp;

const RECORDS = [
  'The office opens at nine in the morning on weekdays.',
  'Refunds are paid back to the original card within five business days.',
  'The parking garage closes at midnight.',
];

async function addRecord(page: Page, text: string) {
  await page.getByLabel('Text of the new record').fill(text);
  await page.getByRole('button', { name: 'Add record' }).click();
  await page.getByRole('table', { name: 'Records' }).getByRole('row').filter({ hasText: text }).waitFor();
}

describe.skipIf(!browserAvailable)('the memories pages', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp();
    ({ t } = app);
    // A model on the offline development provider: its type embeds text, so the form offers it.
    await insertModel(t, 'embedder');
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('makes a memory, adds and replaces records, searches them best first, and edits the memory', async () => {
    const page = await app.signedIn('/memories');
    await page.getByRole('heading', { name: 'Memories', level: 1 }).waitFor();
    await page.getByText('No memories yet.').waitFor();

    await page.getByRole('button', { name: 'New memory' }).click();
    const form = page.getByRole('region', { name: 'New memory' });
    await form.getByLabel('Name').fill('Support notes');
    await form.getByLabel('Description').fill('What the support desk needs to know');
    await form.getByLabel('Labels').fill('team=support\ntier=gold');
    // The API's choices: the built-in provider by default, and the models whose provider type embeds text.
    await expect(form.getByLabel('Memory provider').inputValue()).resolves.toBe('');
    await form.getByLabel('Embedding model').selectOption('embedder');
    await form.getByRole('button', { name: 'Create memory' }).click();
    await page.getByRole('heading', { name: 'Memory: Support notes' }).waitFor();
    const memoryId = /\/memories\/([^/?#]+)/.exec(page.url())![1]!;
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByText('embedder').waitFor();
    await details.getByText('team=support').waitFor();
    await page.getByText('No records yet.').waitFor();

    for (const text of RECORDS) await addRecord(page, text);
    await expect(page.getByRole('table', { name: 'Records' }).getByRole('row').count()).resolves.toBe(RECORDS.length + 1);

    // Search (every score kept): the refunds record first, with the score the service gave it.
    await page.getByLabel('Search query').fill('refund to my card');
    await page.getByLabel('Minimum score').fill('0');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByRole('table', { name: 'Search results' });
    await results.waitFor();
    const first = results.getByRole('row').nth(1);
    await expect(first.textContent()).resolves.toContain(RECORDS[1]);
    const cells = first.getByRole('cell');
    await expect(cells.nth(0).textContent()).resolves.toBe('1');
    const score = Number(await cells.nth(1).textContent());
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThanOrEqual(1);
    const api = await t.graphql(
      `mutation ($id: ID!) { searchMemoryRecords(memoryId: $id, query: "refund to my card", minScore: 0) { records { id score } } }`,
      { id: memoryId },
    );
    const expected = api.data.searchMemoryRecords.records as { id: string; score: number }[];
    expect(expected.length).toBeGreaterThan(1);
    expect(expected[0]!.score).toBe(score);
    // Every result, in the service's order, with its rank and score.
    const rows = await results
      .getByRole('row')
      .evaluateAll((trs) => trs.slice(1).map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent?.trim() ?? '')));
    expect(rows.map((row) => [row[0], Number(row[1]), row[2]])).toEqual(
      expected.map((record, index) => [String(index + 1), record.score, record.id]),
    );
    await expect(page.getByRole('status').filter({ hasText: 'match' }).textContent()).resolves.toMatch(/records? match/);
    await screenshot(page, 'memories-search');

    // Replace the parking record from its row: the form takes its id and text, and the keyboard.
    const parking = page.getByRole('table', { name: 'Records' }).getByRole('row').filter({ hasText: 'parking garage' });
    const parkingId = await parking.getByRole('cell').first().textContent();
    await parking.getByRole('button', { name: `Replace ${parkingId}` }).click();
    await expect(page.getByLabel('Record id').inputValue()).resolves.toBe(parkingId);
    const newText = page.getByLabel('New text');
    await expect(newText.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    await newText.fill('The parking garage closes at eleven at night.');
    await page.getByRole('button', { name: 'Replace record' }).click();
    const replaced = page.getByRole('table', { name: 'Records' }).getByRole('row').filter({ hasText: 'eleven at night' });
    await replaced.waitFor();
    await expect(replaced.textContent()).resolves.toContain('replaced');
    await expect(page.getByRole('table', { name: 'Records' }).getByRole('row').count()).resolves.toBe(RECORDS.length + 1);
    const stored = await t.rest('GET', `/api/v1/memories/${memoryId}/records`);
    expect(stored.body.items.find((record: { id: string }) => record.id === parkingId).text).toBe(
      'The parking garage closes at eleven at night.',
    );
    await screenshot(page, 'memories-memory');

    // Edit: the description and a label; saved with the version the page showed.
    await page.getByRole('button', { name: 'Edit memory' }).click();
    const edit = page.getByRole('region', { name: 'Edit memory' });
    await expect(edit.getByLabel('Labels').inputValue()).resolves.toBe('team=support\ntier=gold');
    await edit.getByLabel('Description').fill('Answers for the support desk');
    await edit.getByLabel('Labels').fill('team=support\ntier=silver');
    await edit.getByRole('button', { name: 'Save memory' }).click();
    await page.getByRole('status').filter({ hasText: 'Memory saved (version 2)' }).waitFor();
    await page.getByText('Answers for the support desk').waitFor();
    const view = await t.rest('GET', `/api/v1/memories/${memoryId}`);
    expect(view.body).toMatchObject({
      description: 'Answers for the support desk',
      labels: { team: 'support', tier: 'silver' },
      version: 2,
    });

    // The list: a second memory, then the text and label filters (kept in the address).
    await t.graphql(`mutation { createMemory(input: { name: "Sales leads", labels: { team: "sales" } }) { memory { id } } }`);
    await page.getByRole('link', { name: 'Memories' }).click();
    const list = page.getByRole('table', { name: 'Memories, newest first' });
    await list.getByRole('link', { name: 'Sales leads' }).waitFor();
    await list.getByRole('link', { name: 'Support notes' }).waitFor();
    await page.getByLabel('Labels').fill('team:support');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/labels=team%3Asupport/);
    await list.getByRole('link', { name: 'Sales leads' }).waitFor({ state: 'detached' });
    await expect(list.getByRole('link', { name: 'Support notes' }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'memories-list');
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Name or description contains').fill('no such memory');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No memory matches the filter.').waitFor();
    await page.close();
  });

  it('shows the service’s refusals: a bad label key, a stale edit, an empty page', async () => {
    const page = await app.signedIn('/memories');
    await page.getByRole('button', { name: 'New memory' }).click();
    const form = page.getByRole('region', { name: 'New memory' });
    await form.getByLabel('Name').fill('Bad labels');
    await form.getByLabel('Labels').fill('not a key=1');
    await form.getByRole('button', { name: 'Create memory' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toMatch(/Could not create the memory.*invalid_argument/);

    const created = await t.graphql(`mutation { createMemory(input: { name: "Contested" }) { memory { id etag } } }`);
    const { id, etag } = created.data.createMemory.memory;
    await page.goto(`/memories/${id}`);
    await page.getByRole('heading', { name: 'Memory: Contested' }).waitFor();
    await page.getByRole('button', { name: 'Edit memory' }).click();
    // Someone else changes the memory meanwhile: the page's version is stale.
    const other = await t.graphql(
      `mutation ($id: ID!, $etag: String) { updateMemory(id: $id, ifMatch: $etag, input: { description: "theirs" }) { memory { version } } }`,
      {
        id,
        etag,
      },
    );
    expect(other.data.updateMemory.memory.version).toBe(2);
    const edit = page.getByRole('region', { name: 'Edit memory' });
    await edit.getByLabel('Description').fill('mine');
    await edit.getByRole('button', { name: 'Save memory' }).click();
    await expect(edit.getByRole('alert').textContent()).resolves.toMatch(/Could not save the memory.*precondition_failed/);

    await page.goto('/memories/mem_does_not_exist');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not_found/);
    await page.close();
  });

  it('reads records page by page', async () => {
    const created = await t.graphql(`mutation { createMemory(input: { name: "Many records" }) { memory { id } } }`);
    const memoryId = created.data.createMemory.memory.id;
    for (let i = 0; i < 55; i += 1) {
      const added = await t.graphql(
        `mutation ($id: ID!, $text: String!) { addMemoryRecord(memoryId: $id, text: $text) { record { id } } }`,
        {
          id: memoryId,
          text: `Note number ${i}`,
        },
      );
      expect(added.errors).toBeUndefined();
    }
    const page = await app.signedIn(`/memories/${memoryId}`);
    const records = page.getByRole('table', { name: 'Records' });
    await records.waitFor();
    // The first page holds 50 records (and the header row); the next 5 come with "Load more".
    await expect(records.getByRole('row').count()).resolves.toBe(51);
    await page.getByRole('button', { name: 'Load more' }).click();
    await records.getByRole('row').nth(55).waitFor();
    await expect(records.getByRole('row').count()).resolves.toBe(56);
    // The last page: nothing more to load.
    await expect(page.getByRole('button', { name: /Load more|Loading/ }).count()).resolves.toBe(0);
    const texts = await records
      .getByRole('row')
      .evaluateAll((rows) => rows.slice(1).map((row) => row.querySelectorAll('td')[1]?.textContent));
    expect(new Set(texts).size).toBe(55);
    await page.close();
  });
});
