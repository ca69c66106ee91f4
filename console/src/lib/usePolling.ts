// Reads something again every few seconds while `active`: pairing requests and a device's connection
// change without any event the console could subscribe to. One read at a time (the
// next is scheduled after the previous answer, never stacked), and none while the tab is hidden.
import { useEffect, useRef } from 'react';

export function usePolling(action: () => unknown, { every, active = true }: { every: number; active?: boolean }): void {
  const latest = useRef(action);
  latest.current = action;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      if (document.visibilityState === 'visible') await latest.current();
      if (!stopped) timer = setTimeout(() => void tick(), every);
    };
    timer = setTimeout(() => void tick(), every);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [active, every]);
}
