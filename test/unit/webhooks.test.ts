// The pure parts of webhooks: the retry schedule and its jitter, the configuration of it, the body
// every attempt sends, which audit rows become which events, and the secrets' shape.
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config.js';
import { eventBody, retryDelayMs } from '../../src/features/webhooks/webhook-delivery.js';
import { auditWebhookEvent } from '../../src/features/webhooks/webhook-events.js';
import { newWebhookSecret } from '../../src/features/webhooks/webhook-subscriptions.js';

describe('webhook retries', () => {
  it('follow the schedule with ±20 % jitter, and end when it is spent', () => {
    const schedule = [1000, 30_000];
    expect(retryDelayMs(schedule, 1, () => 0)).toBe(800);
    expect(retryDelayMs(schedule, 1, () => 0.5)).toBe(1000);
    expect(retryDelayMs(schedule, 2, () => 0.999_999)).toBe(36_000);
    expect(retryDelayMs(schedule, 3)).toBeNull();
  });

  it('default to ten retries over about a day; WEBHOOK_RETRY_SCHEDULE is seconds, validated', () => {
    const config = loadConfig({});
    expect(config.webhookRetryDelaysMs).toHaveLength(10);
    const total = config.webhookRetryDelaysMs.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(total).toBeGreaterThan(20);
    expect(total).toBeLessThan(24);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.5, 2' }).webhookRetryDelaysMs).toEqual([500, 2000]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,x' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '-1' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '5' })).toThrow();
  });
});

describe('webhook events', () => {
  const base = { principalId: 'key_1', requestId: 'req-1' };

  it('derive from audit rows: revisions published, configuration changes; other kinds send nothing', () => {
    expect(
      auditWebhookEvent({
        ...base,
        action: 'create',
        resourceKind: 'skill_revision',
        resourceId: 'skr_2',
        changes: { skill_id: { from: null, to: 'skl_1' }, number: { from: null, to: 2 }, digest: { from: null, to: 'sha256:x' } },
      }),
    ).toEqual({
      kind: 'skill.revision_published',
      data: { skill_id: 'skl_1', revision_id: 'skr_2', number: 2, digest: 'sha256:x', actor_id: 'key_1', request_id: 'req-1' },
    });
    expect(
      auditWebhookEvent({
        ...base,
        action: 'update',
        resourceKind: 'web_provider',
        resourceId: 'prv_1',
        version: 3,
        changes: { enabled: { from: true, to: false }, config: { from: {}, to: {} } },
      }),
    ).toEqual({
      kind: 'provider.changed',
      data: {
        resource_kind: 'web_provider',
        resource_id: 'prv_1',
        action: 'update',
        version: 3,
        changed_fields: ['config', 'enabled'],
        actor_id: 'key_1',
        request_id: 'req-1',
      },
    });
    expect(auditWebhookEvent({ ...base, action: 'update', resourceKind: 'model', resourceId: 'fast' })?.data).toMatchObject({
      model_key: 'fast',
    });
    // Kinds without an event: runs (their own events), access administration, anything unknown.
    for (const kind of ['run', 'inbox_entry', 'webhook_delivery', 'api_key', 'membership', 'agent_revision_x'])
      expect(auditWebhookEvent({ ...base, action: 'update', resourceKind: kind, resourceId: 'x' })).toBeNull();
    // Head changes of agents and skills, sessions, threads, assets and subscriptions are resource changes.
    for (const [kind, event] of [
      ['agent', 'agent.changed'],
      ['skill', 'skill.changed'],
      ['session', 'session.changed'],
      ['thread', 'thread.changed'],
      ['asset', 'asset.changed'],
      ['webhook_subscription', 'webhook_subscription.changed'],
    ] as const)
      expect(auditWebhookEvent({ ...base, action: 'update', resourceKind: kind, resourceId: 'x' })).toMatchObject({
        kind: event,
        data: { resource_kind: kind, resource_id: 'x', action: 'update' },
      });
    // Setting a default revision publishes nothing new: it is a change of the head.
    expect(auditWebhookEvent({ ...base, action: 'set_default', resourceKind: 'agent', resourceId: 'agt_1' })).toMatchObject({
      kind: 'agent.changed',
      data: { action: 'set_default' },
    });
  });

  it('send the same envelope bytes on every attempt', () => {
    const event = { id: 'evt_1', kind: 'webhook.ping', payload: { a: 1 }, createdAt: new Date('2026-01-02T03:04:05.678Z') };
    expect(eventBody(event)).toBe('{"type":"webhook.ping","timestamp":"2026-01-02T03:04:05.678Z","data":{"a":1}}');
    expect(eventBody(event)).toBe(eventBody({ ...event }));
  });

  it('are signed with whsec_ secrets the Standard Webhooks library accepts', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newWebhookSecret()).not.toBe(secret);
    const wh = new Webhook(secret);
    const now = new Date();
    const signature = wh.sign('evt_1', now, '{}');
    expect(
      wh.verify('{}', {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      }),
    ).toEqual({});
  });
});
