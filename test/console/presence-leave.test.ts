// Thread presence leaves at once: with a presence TTL far longer than the test, another user's page
// sees a participant go only because the page left — on moving elsewhere in the console (the
// component unmounts: leavePresence) and on the page itself going away (pagehide: a keepalive
// DELETE /api/presence).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';

let app: ConsoleTestApp;
let t: TestApp;

describe.skipIf(!browserAvailable)('thread presence: leaving', () => {
  beforeAll(async () => {
    // Ten minutes: nothing in this test expires.
    app = await startConsoleTestApp(
      { presenceTtlSeconds: 600 },
      {
        users: [
          { email: 'cy@example.com', password: 'long enough password', name: 'Cy' },
          { email: 'dee@example.com', password: 'long enough password', name: 'Dee' },
        ],
      },
    );
    t = app.t;
  });
  afterAll(async () => {
    await app?.stop();
  });

  const participantsOnService = async (threadId: string) =>
    ((await t.graphql('{ presence { participants { participantId } } }')).data.presence.participants as { participantId: string }[])
      .map((p) => p.participantId)
      .filter((id) => id.startsWith(`thread:${threadId}:`));

  it('others see a user go at once when they move elsewhere in the console or leave the page', async () => {
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body as { id: string };
    const cy = await app.signedInAs('cy@example.com', 'long enough password', `/threads/${thread.id}`);
    const cySees = cy.getByRole('list', { name: 'People on this thread' });
    await cySees.getByText('you, this tab').waitFor();

    const dee = await app.signedInAs('dee@example.com', 'long enough password', `/threads/${thread.id}`);
    await cySees.getByRole('listitem').filter({ hasText: 'Dee' }).waitFor();

    // Elsewhere in the console: the presence component unmounts and leaves.
    await dee.getByRole('link', { name: 'Threads', exact: true }).click();
    await dee.getByRole('heading', { name: 'Threads', level: 1 }).waitFor();
    await cySees.getByRole('listitem').filter({ hasText: 'Dee' }).waitFor({ state: 'detached' });
    await cy.getByText('Nobody else has this thread open.').waitFor();
    await screenshot(cy, 'threads-presence-left');

    // Back on the thread, then the page goes away (a full navigation: no React unmount, only pagehide).
    await dee.goto(`/threads/${thread.id}`);
    await dee.getByRole('list', { name: 'People on this thread' }).getByText('you, this tab').waitFor();
    await cySees.getByRole('listitem').filter({ hasText: 'Dee' }).waitFor();
    await dee.goto('about:blank');
    await cySees.getByRole('listitem').filter({ hasText: 'Dee' }).waitFor({ state: 'detached' });
    const left = await participantsOnService(thread.id);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/:Cy$/);
    await dee.close();
    await cy.close();
  }, 120_000);
});
