// The activity heartbeat: while the user has the console in front of them the service holds back run
// notifications (they would see the run anyway). Recorded when the page shows or regains focus, and
// every minute while the tab is visible; a failed heartbeat is harmless and not shown.
import { ConsoleRecordPushActivityDocument } from '../../../generated/graphql';
import { useEffect } from 'react';
import { useMutation } from '../../api';

const EVERY_MS = 60_000;

export function usePushActivity(subscriptionId: string | null): void {
  const [record] = useMutation(ConsoleRecordPushActivityDocument);
  useEffect(() => {
    if (!subscriptionId) return;
    const beat = () => {
      if (document.visibilityState === 'visible') void record({ id: subscriptionId });
    };
    beat();
    const timer = window.setInterval(beat, EVERY_MS);
    window.addEventListener('focus', beat);
    document.addEventListener('visibilitychange', beat);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('focus', beat);
      document.removeEventListener('visibilitychange', beat);
    };
  }, [record, subscriptionId]);
}
