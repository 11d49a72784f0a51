/** The current time, again every `ms`: ages ("3 min ago") and countdowns move on by themselves. */
import { useEffect, useState } from 'react';
import { startPolling } from '../stores/poll';

export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const clock = startPolling(
      async () => setNow(Date.now()),
      () => ms,
      ms,
    );
    return () => clock.stop();
  }, [ms]);
  return now;
}
