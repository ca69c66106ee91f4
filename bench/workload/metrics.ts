// Reads the service's operator metrics (GET /metrics, Prometheus text) for the event-loop delay and the
// database pool's waits. The event-loop summary covers the time since the previous scrape, so the bench
// scrapes once as a level starts (which resets it) and once as it ends.

export type Samples = Map<string, number>;

/** `name{labels} value` lines as a map (comments and blank lines left out). */
export function parseSamples(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line.trim());
    if (match) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

export async function scrape(url: string, token: string): Promise<Samples> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET /metrics: ${response.status}`);
  return parseSamples(await response.text());
}

export interface LevelMetrics {
  eventLoopP50Ms: number;
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
  poolWaitMeanMs: number;
  poolWaitMaxMs: number;
  poolAcquires: number;
}

/** The level's figures from the scrape at its start and the one at its end. */
export function levelMetrics(start: Samples, end: Samples): LevelMetrics {
  const get = (samples: Samples, name: string) => samples.get(name) ?? 0;
  const acquires = get(end, 'wsa_db_pool_wait_seconds_count') - get(start, 'wsa_db_pool_wait_seconds_count');
  const waited = get(end, 'wsa_db_pool_wait_seconds_sum') - get(start, 'wsa_db_pool_wait_seconds_sum');
  return {
    eventLoopP50Ms: get(end, 'wsa_event_loop_delay_seconds{quantile="0.5"}') * 1000,
    eventLoopP99Ms: get(end, 'wsa_event_loop_delay_seconds{quantile="0.99"}') * 1000,
    eventLoopMaxMs: get(end, 'wsa_event_loop_delay_seconds{quantile="1"}') * 1000,
    poolWaitMeanMs: acquires > 0 ? (waited / acquires) * 1000 : 0,
    poolWaitMaxMs: get(end, 'wsa_db_pool_wait_max_seconds') * 1000,
    poolAcquires: acquires,
  };
}
