// The inexpensive probe most HTTP providers share: one GET that needs valid credentials, with a
// time-out, whose failure message never carries a secret.
import type { ProbeResult } from './registry.js';
import { fetchFailure } from '../lib/outbound-policy.js';

export const PROBE_TIMEOUT_MS = 10_000;

export async function probeGet(
  fetchThrough: typeof fetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  secrets: string[] = [],
): Promise<ProbeResult> {
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const scrub = (text: string) =>
    secrets.filter((s) => s && s.length >= 4).reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  try {
    const response = await fetchThrough(url, { headers, signal: AbortSignal.any([signal, timeout]) });
    if (response.ok) return { status: 'succeeded' };
    const body = (await response.text().catch(() => '')).slice(0, 300);
    return { status: 'failed', message: scrub(`the provider answered ${response.status}${body ? `: ${body}` : ''}`) };
  } catch (error) {
    if (timeout.aborted) return { status: 'failed', message: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` };
    return {
      status: 'failed',
      message: scrub(`could not reach the provider: ${fetchFailure(error)}`),
    };
  }
}

export const trimSlash = (url: string) => url.replace(/\/+$/, '');
