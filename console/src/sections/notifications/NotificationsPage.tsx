// /notifications: web-push opt-in for this browser. The service pushes when a run waits for someone,
// fails, or completes after a wait; this page subscribes the browser (service worker + PushManager) with
// the service's VAPID key, registers the subscription with the service, sends a test, turns it off,
// lists every subscription the service keeps for the user (other browsers' too, removable), and lists
// the pushes that arrive while it is open.
import {
  ConsoleDeletePushSubscriptionDocument,
  ConsolePushConfigurationDocument,
  ConsoleTestPushSubscriptionDocument,
  ConsoleUpsertPushSubscriptionDocument,
} from '../../../generated/graphql';
import { useCallback, useEffect, useState } from 'react';
import { useMutation, useQuery } from '../../api';
import type { ConsoleTestPushSubscriptionMutation } from '../../../generated/graphql';
import { Empty, ErrorNotice, Loading, PageHeader, Status, Time } from '../../components/ui';
import {
  currentBrowserSubscription,
  serviceWorkerRegistration,
  subscribeBrowser,
  subscriptionInput,
  unsupportedReason,
} from './browserPush';
import { type ServicePushSubscription } from './queries';
import { ReceivedPushes, type ReceivedPush } from './ReceivedPushes';
import { ServiceSubscriptions } from './ServiceSubscriptions';
import { usePushActivity } from './usePushActivity';
import { useServiceWorkerMessages } from './usePushMessages';

type BrowserState =
  | { kind: 'checking' }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'off' }
  | { kind: 'on'; subscription: ServicePushSubscription; browser: PushSubscription };

type TestOutcome = ConsoleTestPushSubscriptionMutation['testPushSubscription'];

export function NotificationsPage() {
  const configuration = useQuery(ConsolePushConfigurationDocument, {});
  const [state, setState] = useState<BrowserState>({ kind: 'checking' });
  const [browserError, setBrowserError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [testOutcome, setTestOutcome] = useState<TestOutcome | null>(null);
  const [received, setReceived] = useState<ReceivedPush[]>([]);
  const [upsert, upserting] = useMutation(ConsoleUpsertPushSubscriptionDocument);
  const [sendTest, testing] = useMutation(ConsoleTestPushSubscriptionDocument);
  const [remove, removing] = useMutation(ConsoleDeletePushSubscriptionDocument);

  /** Registers the browser's subscription (if it has one) with the service: an upsert, so a no-op when known. */
  const register = useCallback(
    async (browser: PushSubscription | null) => {
      if (!browser) {
        setState({ kind: 'off' });
        return;
      }
      const answer = await upsert({ input: subscriptionInput(browser) });
      setState(answer ? { kind: 'on', subscription: answer.upsertPushSubscription.subscription, browser } : { kind: 'off' });
    },
    [upsert],
  );

  const sync = useCallback(async () => {
    const reason = unsupportedReason();
    if (reason) {
      setState({ kind: 'unsupported', reason });
      return;
    }
    try {
      // Registered on every visit, so pushes reach this page even before the user opts in here again.
      await serviceWorkerRegistration();
      await register(await currentBrowserSubscription());
    } catch (error) {
      setBrowserError(error);
      setState({ kind: 'off' });
    }
  }, [register]);

  useEffect(() => {
    void sync();
  }, [sync]);

  // The user is looking at the console: the service holds back run notifications meanwhile.
  usePushActivity(state.kind === 'on' ? state.subscription.id : null);

  useServiceWorkerMessages((message) => {
    if (message.type === 'push') setReceived((list) => [{ receivedAt: new Date().toISOString(), payload: message.payload }, ...list]);
    // The browser renewed the subscription: tell the service about the new one.
    if (message.type === 'pushsubscriptionchange') void sync();
  });

  async function turnOn(publicKey: string) {
    setBrowserError(undefined);
    setTestOutcome(null);
    setBusy(true);
    try {
      await register(await subscribeBrowser(publicKey));
    } catch (error) {
      setBrowserError(error);
    } finally {
      setBusy(false);
    }
  }

  async function test(subscription: ServicePushSubscription) {
    setTestOutcome(null);
    const answer = await sendTest({ id: subscription.id });
    if (!answer) return;
    setTestOutcome(answer.testPushSubscription);
    // The push service said the subscription is gone (404/410): the service deleted it; so does the browser.
    if (answer.testPushSubscription.removed) await turnOffBrowser();
  }

  async function turnOffBrowser() {
    if (state.kind === 'on') await state.browser.unsubscribe().catch(() => false);
    setState({ kind: 'off' });
  }

  async function turnOff(subscription: ServicePushSubscription) {
    setBrowserError(undefined);
    setTestOutcome(null);
    if (!(await remove({ id: subscription.id }))) return;
    await turnOffBrowser();
  }

  const config = configuration.data?.pushConfiguration;
  return (
    <>
      <PageHeader title="Notifications">
        Browser notifications when a run waits for someone, fails, or completes after a wait — while you are not using the console.
      </PageHeader>
      <ErrorNotice error={configuration.error} />
      {configuration.loading && !config ? <Loading label="Loading the push configuration…" /> : null}
      {config ? (
        <section aria-labelledby="push-service">
          <h2 id="push-service">The service</h2>
          {!config.enabled ? (
            <p className="notice">Delivery is turned off on this service: subscriptions are kept but nothing is sent.</p>
          ) : null}
          <dl className="facts">
            <dt>Delivery</dt>
            <dd>{config.enabled ? 'on' : 'off'}</dd>
            <dt>Notifications</dt>
            <dd>{config.notificationKinds.join(', ')}</dd>
            <dt>Quiet while active</dt>
            <dd>no run notifications within {config.activeWindowSeconds} s of using the console</dd>
          </dl>
        </section>
      ) : null}
      <section aria-labelledby="push-browser">
        <h2 id="push-browser">This browser</h2>
        <ErrorNotice error={browserError} title="The browser refused" />
        <ErrorNotice error={upserting.error} title="Could not register the subscription" />
        <ErrorNotice error={testing.error} title="Could not send a test" />
        <ErrorNotice error={removing.error} title="Could not turn notifications off" />
        {state.kind === 'checking' ? <Loading label="Checking this browser…" /> : null}
        {state.kind === 'unsupported' ? <Empty>{state.reason}</Empty> : null}
        {state.kind === 'off' ? (
          <>
            <Status>Notifications are off in this browser.</Status>
            <button type="button" onClick={() => config && void turnOn(config.publicKey)} disabled={!config || busy || upserting.loading}>
              {busy ? 'Subscribing…' : 'Turn on notifications'}
            </button>
          </>
        ) : null}
        {state.kind === 'on' ? (
          <>
            <Status>Notifications are on in this browser.</Status>
            <dl className="facts">
              <dt>Subscription</dt>
              <dd>
                <code>{state.subscription.id}</code>
              </dd>
              <dt>Push service</dt>
              <dd>
                <code>{new URL(state.subscription.endpoint).host}</code>
              </dd>
              <dt>Subscribed</dt>
              <dd>
                <Time value={state.subscription.createdAt} />
              </dd>
            </dl>
            <div className="actions">
              <button type="button" onClick={() => void test(state.subscription)} disabled={testing.loading}>
                {testing.loading ? 'Sending…' : 'Send a test'}
              </button>
              <button type="button" className="danger" onClick={() => void turnOff(state.subscription)} disabled={removing.loading}>
                Turn off notifications
              </button>
            </div>
          </>
        ) : null}
        {testOutcome ? <TestOutcomeNotice outcome={testOutcome} /> : null}
      </section>
      <ServiceSubscriptions currentId={state.kind === 'on' ? state.subscription.id : null} onRemovedCurrent={turnOffBrowser} />
      <ReceivedPushes pushes={received} />
    </>
  );
}

function TestOutcomeNotice({ outcome }: { outcome: TestOutcome }) {
  if (outcome.delivered) return <Status>Test sent: the push service accepted it (HTTP {outcome.statusCode}).</Status>;
  const why = [outcome.statusCode ? `HTTP ${outcome.statusCode}` : 'no answer', outcome.error].filter(Boolean).join(': ');
  return (
    <div role="alert" className="notice error">
      The push service did not take the test ({why}).
      {outcome.removed ? ' This subscription is gone; turn notifications on again to get a new one.' : null}
    </div>
  );
}
