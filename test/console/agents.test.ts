// The agents section in a real browser against a real service: creating an agent (by hand and with the
// composer, answering the questions its runs wait on and approving its writes), revisions (publishing, comparing, the default), the list's filters, archiving, and the
// message when someone else changed the agent between reading and saving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import type { ModelServer } from '../helpers/model-servers.js';

let app: ConsoleTestApp;
let t: TestApp;
let model: ModelServer;

const signedIn = (path: string) => app.signedIn(path);
const createAgentThroughApi = (name: string, body: Record<string, unknown> = {}) => app.createAgent(name, { model: 'loop' }, body);

/** The rows of the agents table, by the agent names in their first cell. */
async function listedNames(page: Page): Promise<string[]> {
  return page.getByRole('table').getByRole('link').allTextContents();
}

describe.skipIf(!browserAvailable)('the agents section of the console', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp({}, { loopbackModel: 'loop' });
    ({ t } = app);
    model = app.model!;
  });
  afterAll(() => app?.stop());

  it('creates an agent, publishes a second revision, compares them and sets the default', async () => {
    const page = await signedIn('/agents');
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByRole('heading', { name: 'New agent' }).waitFor();
    await page.getByLabel('Name').fill('Support bot');
    await page.getByLabel('Description').fill('Answers support questions');
    await page.getByLabel('Labels').fill('team:support');
    const config = page.getByLabel('Configuration (JSON)');
    // The model keys the configuration may name.
    await page.getByText('Model keys in this workspace: loop').waitFor();
    // Not JSON: the page says so and sends nothing.
    await config.fill('{"model": ');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Configuration is not JSON/);
    // JSON the service refuses: its message, naming the member.
    await config.fill('{"model": "loop", "temperature_typo": 1}');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not create the agent' }).waitFor();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not create the agent' }).textContent()).resolves.toMatch(
      /invalid_argument/,
    );
    await screenshot(page, 'agents-new-refused');
    await config.fill('{"model": "loop", "instructions": "Be brief."}');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'Support bot', level: 1 }).waitFor();
    const agentId = /\/agents\/(agt_[^/?]+)/.exec(page.url())?.[1];
    expect(agentId).toBeTruthy();
    const created = await t.rest('GET', `/api/v1/agents/${agentId}`);
    expect(created.body).toMatchObject({ name: 'Support bot', description: 'Answers support questions', labels: { team: 'support' } });
    expect(await page.getByRole('link', { name: 'Start a run' }).getAttribute('href')).toBe(`/runs/new?agent=${agentId}`);

    // A second revision from an edited configuration.
    const editor = page.getByLabel('New configuration (JSON)');
    expect(JSON.parse(await editor.inputValue())).toEqual({ model: 'loop', instructions: 'Be brief.', user_questions: false });
    await editor.fill(JSON.stringify({ model: 'loop', instructions: 'Be thorough.', user_questions: true }, null, 2));
    await page.getByLabel('Note', { exact: true }).fill('more thorough');
    await page.getByRole('button', { name: 'Publish revision' }).click();
    await page.getByRole('status').filter({ hasText: 'Published revision #2 as the default.' }).waitFor();
    const revisions = page.getByRole('table', { name: /Revisions of Support bot/ });
    await revisions.getByRole('rowheader', { name: '#2' }).waitFor();
    // The details re-render after the revisions table: wait for the default to read #2, not for one read.
    const defaultRevision = page.getByRole('term').filter({ hasText: 'Default revision' }).locator('xpath=following-sibling::dd[1]');
    await expect.poll(() => defaultRevision.textContent(), { timeout: 10_000 }).toBe('#2');

    // The diff between #1 and #2 (the newest two by default), as insertions and deletions.
    await page.getByRole('heading', { name: 'Changes from revision #1 to revision #2' }).waitFor();
    const diff = page.getByLabel('Configuration diff from revision 1 to revision 2');
    expect(await diff.locator('del').allTextContents()).toEqual([
      '− removed:   "instructions": "Be brief.",',
      '− removed:   "user_questions": false',
    ]);
    expect(await diff.locator('ins').allTextContents()).toEqual([
      '+ added:   "instructions": "Be thorough.",',
      '+ added:   "user_questions": true',
    ]);
    await expect(page.getByText('2 lines added, 2 lines removed.').isVisible()).resolves.toBe(true);
    await screenshot(page, 'agents-revisions-diff');
    // Choosing the other way round swaps additions and removals.
    await page.getByRole('combobox', { name: 'From revision' }).selectOption({ label: '#2 — more thorough' });
    await page.getByRole('combobox', { name: 'To revision' }).selectOption({ label: '#1' });
    await page.getByRole('heading', { name: 'Changes from revision #2 to revision #1' }).waitFor();
    expect(await page.getByLabel('Configuration diff from revision 2 to revision 1').locator('ins').allTextContents()).toEqual([
      '+ added:   "instructions": "Be brief.",',
      '+ added:   "user_questions": false',
    ]);

    // Back to revision 1 as the default.
    await page.getByRole('button', { name: 'Make revision #1 the default' }).click();
    await page.getByRole('button', { name: 'Make revision #2 the default' }).waitFor();
    const head = await t.rest('GET', `/api/v1/agents/${agentId}`);
    const first = await t.rest('GET', `/api/v1/agents/${agentId}/revisions`);
    expect(head.body.default_revision_id).toBe(first.body.items.find((revision: { number: number }) => revision.number === 1).id);
    // A new revision can start from any revision's configuration.
    await page.getByRole('button', { name: 'Edit a copy of revision #2' }).click();
    await page.getByRole('status').filter({ hasText: 'Editing a copy of revision #2.' }).waitFor();
    const copy = page.getByLabel('New configuration (JSON)');
    await expect(copy.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    expect(JSON.parse(await copy.inputValue())).toEqual({ model: 'loop', instructions: 'Be thorough.', user_questions: true });
    await screenshot(page, 'agents-detail');
    await page.close();
  });

  it('fills the create form from the composer’s proposal', async () => {
    const proposal = {
      name: 'Billing helper',
      description: 'Answers billing questions',
      config: { model: 'loop', instructions: 'Answer billing questions briefly.' },
    };
    model.turns.push({ text: JSON.stringify(proposal) });
    const page = await signedIn('/agents/new');
    await page.getByLabel('Describe the agent').fill('An agent for billing questions');
    await page.getByRole('button', { name: 'Ask the composer' }).click();
    await page.getByRole('heading', { name: 'Proposal: Billing helper' }).waitFor();
    await screenshot(page, 'agents-composer');
    // The composer's run got the user's words.
    const asked = model.requests.filter((request) => request.path === '/v1/chat/completions').at(-1);
    expect(JSON.stringify(asked?.body.messages)).toContain('An agent for billing questions');
    await page.getByRole('button', { name: 'Use this proposal' }).click();
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Billing helper');
    expect(JSON.parse(await page.getByLabel('Configuration (JSON)').inputValue())).toEqual(proposal.config);
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'Billing helper', level: 1 }).waitFor();
    await page.close();
  });

  it('answers the composer’s question in place and gets its proposal', async () => {
    model.turns.push(
      { tool: { id: 'call_tone', name: 'ask_user', arguments: { question: 'Which tone should it use?', choices: ['formal', 'casual'] } } },
      { text: JSON.stringify({ name: 'Casual greeter', config: { model: 'loop', instructions: 'Greet casually.' } }) },
    );
    const page = await signedIn('/agents/new');
    await page.getByLabel('Describe the agent').fill('An agent that greets people');
    await page.getByRole('button', { name: 'Ask the composer' }).click();
    const question = page.getByRole('group', { name: 'Which tone should it use?' });
    await question.waitFor();
    await screenshot(page, 'agents-composer-question');
    await question.getByRole('radio', { name: 'casual' }).check();
    await page.getByRole('button', { name: 'Send answers' }).click();
    await page.getByRole('heading', { name: 'Proposal: Casual greeter' }).waitFor();
    // The successor run carried the answer to the model as the tool's result.
    const last = model.requests.filter((request) => request.path === '/v1/chat/completions').at(-1);
    expect(last?.body.messages.find((message: { role: string }) => message.role === 'tool')?.content).toContain('casual');
    await page.close();
  });

  it('answers the composer’s questions batch by batch as its runs wait, and the last run completes', async () => {
    // The model calls only `ask_user` here (no platform write tool, so no approval); a waiting run is
    // its question. Two in a row: a free-text one, then one with choices in the successor run.
    const proposal = { name: 'Finance helper', description: 'For the finance team', config: { model: 'loop', instructions: 'Be exact.' } };
    model.turns.push(
      { tool: { id: 'call_who', name: 'ask_user', arguments: { question: 'Who will use the agent?' } } },
      { tool: { id: 'call_tone', name: 'ask_user', arguments: { question: 'How formal should it be?', choices: ['formal', 'casual'] } } },
      { text: JSON.stringify(proposal) },
    );
    const page = await signedIn('/agents/new');
    await page.getByLabel('Describe the agent').fill('An agent for expense questions');
    await page.getByRole('button', { name: 'Ask the composer' }).click();
    const composer = page.getByRole('region', { name: 'Compose with the assistant' });
    const answers = composer.getByRole('form', { name: 'The composer needs your answer' });
    const who = answers.getByLabel('Who will use the agent?');
    await who.waitFor();
    const firstRunId = await composer.getByRole('link', { name: /^run_/ }).textContent();
    expect((await t.rest('GET', `/api/v1/runs/${firstRunId}`)).body.status).toBe('waiting');
    // Nothing is sent until every pending entry has an answer.
    const send = answers.getByRole('button', { name: 'Send answers' });
    await expect(send.isDisabled()).resolves.toBe(true);
    await who.fill('The finance team');
    await expect(send.isEnabled()).resolves.toBe(true);
    await send.click();

    // The successor run waits on the second question; the form is new (nothing carried over).
    const tone = answers.getByRole('group', { name: 'How formal should it be?' });
    await tone.waitFor();
    const secondRunId = await composer.getByRole('link', { name: /^run_/ }).textContent();
    expect(secondRunId).not.toBe(firstRunId);
    await expect(answers.getByRole('button', { name: 'Send answers' }).isDisabled()).resolves.toBe(true);
    await screenshot(page, 'agents-composer-second-question');
    await tone.getByRole('radio', { name: 'formal' }).check();
    await answers.getByRole('button', { name: 'Send answers' }).click();

    await page.getByRole('heading', { name: 'Proposal: Finance helper' }).waitFor();
    await composer.getByText('completed', { exact: true }).waitFor();
    const lastRunId = await composer.getByRole('link', { name: /^run_/ }).textContent();
    // Through the API: a chain of three runs, each resumed with the answer the page sent, the last one
    // completed with the proposal as its output.
    const first = (await t.rest('GET', `/api/v1/runs/${firstRunId}`)).body;
    const second = (await t.rest('GET', `/api/v1/runs/${secondRunId}`)).body;
    const last = (await t.rest('GET', `/api/v1/runs/${lastRunId}`)).body;
    expect(first.resumed_by_id).toBe(secondRunId);
    expect(second).toMatchObject({ parent_run_id: firstRunId, lineage: 'resume', resumed_by_id: lastRunId });
    expect(second.resume.calls.call_who).toMatchObject({ status: 'returned', value: 'The finance team' });
    expect(last).toMatchObject({ parent_run_id: secondRunId, status: 'completed', output: proposal });
    expect(last.resume.calls.call_tone).toMatchObject({ status: 'returned', value: 'formal' });
    // The model saw both answers as the tools' results.
    const request = model.requests.filter((entry) => entry.path === '/v1/chat/completions').at(-1);
    const toolResults = request?.body.messages
      .filter((message: { role: string }) => message.role === 'tool')
      .map((message: { content: string }) => message.content);
    expect(toolResults.join('\n')).toContain('The finance team');
    expect(toolResults.join('\n')).toContain('formal');
    await page.getByRole('button', { name: 'Use this proposal' }).click();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Finance helper');
    await page.close();
  });

  it('approves the composer’s create_agent from the page; the run completes and the new agent is listed', async () => {
    const config = { model: 'loop', instructions: 'Sort incoming tickets by urgency.' };
    model.turns.push(
      { tool: { id: 'call_models', name: 'list_models', arguments: {} } },
      { tool: { id: 'call_create', name: 'create_agent', arguments: { name: 'Ticket triager', description: 'Sorts tickets', config } } },
      { text: JSON.stringify({ name: 'Ticket triager', config }) },
    );
    const page = await signedIn('/agents/new');
    await page.getByLabel('Describe the agent').fill('An agent that sorts support tickets');
    await page.getByRole('button', { name: 'Ask the composer' }).click();
    const composer = page.getByRole('region', { name: 'Compose with the assistant' });
    const answers = composer.getByRole('form', { name: 'The composer needs your answer' });
    // The write waits for the user: the run asks to approve create_agent, showing its arguments.
    const approval = answers.getByRole('group', { name: 'Allow create_agent?' });
    await approval.waitFor();
    const waitingRunId = await composer.getByRole('link', { name: /^run_/ }).textContent();
    const waiting = (await t.rest('GET', `/api/v1/runs/${waitingRunId}`)).body;
    expect(waiting).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    expect(await approval.getByLabel('Arguments of create_agent').textContent()).toContain('Ticket triager');
    // Nothing exists before the approval.
    expect((await t.rest('GET', '/api/v1/agents?q=Ticket%20triager')).body.items).toEqual([]);
    await screenshot(page, 'agents-composer-approval');
    const send = answers.getByRole('button', { name: 'Send answers' });
    await expect(send.isDisabled()).resolves.toBe(true);
    await approval.getByRole('radio', { name: 'Approve' }).check();
    await send.click();

    await page.getByRole('heading', { name: 'Proposal: Ticket triager' }).waitFor();
    await composer.getByText('completed', { exact: true }).waitFor();
    const lastRunId = await composer.getByRole('link', { name: /^run_/ }).textContent();
    const last = (await t.rest('GET', `/api/v1/runs/${lastRunId}`)).body;
    expect(last).toMatchObject({ parent_run_id: waitingRunId, status: 'completed' });
    expect(last.resume.approvals.call_create).toMatchObject({ action: 'approve' });
    const created = (await t.rest('GET', '/api/v1/agents?q=Ticket%20triager')).body.items;
    expect(created).toEqual([expect.objectContaining({ name: 'Ticket triager', description: 'Sorts tickets', source: 'custom' })]);

    // The proposal was applied by the approved create_agent: the composer and the form say so, and the
    // form does not create it a second time.
    const appliedNote = composer.getByRole('status').filter({ hasText: 'Applied: the composer created this agent as' });
    await appliedNote.waitFor();
    expect(await appliedNote.getByRole('link', { name: 'Ticket triager' }).getAttribute('href')).toBe(`/agents/${created[0].id}`);
    await composer.getByRole('button', { name: 'Use this proposal' }).click();
    const form = page.getByRole('form', { name: 'Agent' });
    await form.getByRole('status').filter({ hasText: 'the composer already created this proposal as the agent Ticket triager' }).waitFor();
    expect(await form.getByLabel('Name').inputValue()).toBe('Ticket triager');
    await expect(form.getByRole('button', { name: 'Already created' }).isDisabled()).resolves.toBe(true);
    await screenshot(page, 'agents-composer-applied');
    // Another name is another agent: the form creates it.
    await form.getByLabel('Name').fill('Ticket triager two');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { name: 'Ticket triager two', level: 1 }).waitFor();
    expect((await t.rest('GET', '/api/v1/agents?q=Ticket%20triager')).body.items.map((a: { name: string }) => a.name).sort()).toEqual([
      'Ticket triager',
      'Ticket triager two',
    ]);

    // The agents list shows it.
    await page.goto('/agents?q=triager');
    await expect.poll(() => listedNames(page)).toEqual(['Ticket triager two', 'Ticket triager']);
    await page.getByRole('link', { name: 'Ticket triager', exact: true }).click();
    await page.getByRole('heading', { name: 'Ticket triager', level: 1, exact: true }).waitFor();
    await page.close();
  });

  it('filters the list by text, labels and archived, and pages through it', async () => {
    await createAgentThroughApi('Filter alpha', { description: 'first of the filter agents', labels: { tier: 'gold' } });
    await createAgentThroughApi('Filter beta', { labels: { tier: 'silver' } });
    const archived = await createAgentThroughApi('Filter gamma', { labels: { tier: 'gold' } });
    expect((await t.rest('POST', `/api/v1/agents/${archived.id}/archive`, { headers: { 'If-Match': archived.etag } })).status).toBe(200);

    const page = await signedIn('/agents');
    await page.getByRole('table').waitFor();
    await page.getByLabel('Search').fill('filter');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/q=filter/);
    await expect.poll(() => listedNames(page)).toEqual(['Filter beta', 'Filter alpha']);
    await page.getByLabel('Labels').fill('tier:gold');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => listedNames(page)).toEqual(['Filter alpha']);
    await screenshot(page, 'agents-list-filtered');
    await page.getByLabel('Archived').selectOption('true');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => listedNames(page)).toEqual(['Filter gamma']);
    await expect(page.getByRole('table').getByText('archived', { exact: true }).isVisible()).resolves.toBe(true);
    // The filters are in the address: a reload keeps them.
    await page.reload();
    await expect.poll(() => listedNames(page)).toEqual(['Filter gamma']);
    await expect(page.getByLabel('Labels').inputValue()).resolves.toBe('tier:gold');

    // Paging: 25 a page, "Load more" appends the next.
    for (let index = 0; index < 26; index++) await createAgentThroughApi(`Paged ${String(index).padStart(2, '0')}`);
    await page.goto('/agents?q=paged');
    await expect.poll(async () => (await listedNames(page)).length).toBe(25);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(async () => (await listedNames(page)).length).toBe(26);
    expect((await listedNames(page)).at(-1)).toBe('Paged 00');
    await expect(page.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);
    await page.close();
  });

  it('archives an agent after a confirmation; it leaves the default list', async () => {
    const agent = await createAgentThroughApi('Retiring agent');
    const page = await signedIn(`/agents/${agent.id}`);
    await page.getByRole('heading', { name: 'Retiring agent', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive Retiring agent?' });
    await dialog.waitFor();
    // Focus moved into the dialog, on the safe choice.
    await expect(dialog.getByRole('button', { name: 'Cancel' }).evaluate((button) => button === document.activeElement)).resolves.toBe(
      true,
    );
    await screenshot(page, 'agents-archive-confirm');
    await dialog.getByRole('button', { name: 'Archive agent' }).click();
    await page.getByRole('button', { name: 'Unarchive' }).waitFor();
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body.archived_at).toBeTruthy();
    await page.getByRole('link', { name: '← All agents' }).click();
    await page.getByRole('table').waitFor();
    expect(await listedNames(page)).not.toContain('Retiring agent');
    await page.goto('/agents?archived=true');
    await expect.poll(() => listedNames(page)).toContain('Retiring agent');
    // And back.
    await page.getByRole('link', { name: 'Retiring agent' }).click();
    await page.getByRole('button', { name: 'Unarchive' }).click();
    await page.getByRole('dialog', { name: 'Unarchive Retiring agent?' }).getByRole('button', { name: 'Unarchive agent' }).click();
    await page.getByRole('button', { name: 'Archive', exact: true }).waitFor();
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body.archived_at).toBeNull();
    await page.close();
  });

  it('says when someone else changed the agent between reading and saving, and reloads it', async () => {
    const agent = await createAgentThroughApi('Contested agent');
    const page = await signedIn(`/agents/${agent.id}`);
    await page.getByRole('heading', { name: 'Contested agent', level: 1 }).waitFor();
    // Someone else renames it after the page read it.
    const changed = await t.rest('PATCH', `/api/v1/agents/${agent.id}`, {
      headers: { 'If-Match': agent.etag },
      body: { name: 'Renamed elsewhere' },
    });
    expect(changed.status).toBe(200);
    const form = page.getByRole('form', { name: 'Name, description and labels' });
    await form.getByLabel('Name').fill('My new name');
    await form.getByRole('button', { name: 'Save changes' }).click();
    const conflict = page.getByRole('alert').filter({ hasText: 'Someone else changed this agent' });
    await conflict.waitFor();
    await screenshot(page, 'agents-conflict');
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body.name).toBe('Renamed elsewhere');
    await conflict.getByRole('button', { name: 'Reload the agent' }).click();
    await page.getByRole('heading', { name: 'Renamed elsewhere', level: 1 }).waitFor();
    // The form takes the reloaded agent as it renders it (a moment after the heading): wait for it.
    await expect.poll(() => form.getByLabel('Name').inputValue()).toBe('Renamed elsewhere');
    // Saving again, on the current version, works.
    await form.getByLabel('Name').fill('My new name');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'My new name', level: 1 }).waitFor();
    await page.close();
  });
});
