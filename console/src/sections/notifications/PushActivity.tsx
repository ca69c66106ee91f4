// The activity heartbeat for every console page (mount once inside the signed-in frame): finds this
// browser's push subscription without asking the user anything, learns its id from the service (the
// upsert is idempotent: nothing is written when nothing changed) and records activity while the console
// is in front of the user. Renders nothing.
import { ConsoleUpsertPushSubscriptionDocument } from '../../../generated/graphql';
import { useEffect, useState } from 'react';
import { useMutation } from '../../api';
import { currentBrowserSubscription, subscriptionInput, unsupportedReason } from './browserPush';

import { usePushActivity } from './usePushActivity';

export function PushActivity() {
  const [subscriptionId, setSubscriptionId] = useState<string | null>(null);
  const [upsert] = useMutation(ConsoleUpsertPushSubscriptionDocument);
  useEffect(() => {
    if (unsupportedReason()) return;
    let stopped = false;
    void (async () => {
      const browser = await currentBrowserSubscription().catch(() => null);
      if (!browser || stopped) return;
      const answer = await upsert({ input: subscriptionInput(browser) });
      if (answer && !stopped) setSubscriptionId(answer.upsertPushSubscription.subscription.id);
    })();
    return () => {
      stopped = true;
    };
  }, [upsert]);
  usePushActivity(subscriptionId);
  return null;
}
