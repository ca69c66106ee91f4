// The outbound policy for gRPC clients (@grpc/grpc-js). grpc-js resolves a target's name with its
// own resolver and then connects to the addresses it got, so neither a fetch dispatcher nor a socket
// `lookup` reaches its connections. Instead a channel is given a target of this module's scheme:
// its resolver resolves the name through the policy's `lookup` (which refuses a name any of whose
// addresses the policy refuses, a literal included) and hands grpc-js only checked addresses, which
// it connects to as they are — no second resolution a name could answer differently. The target's
// authority stays the written host, so TLS still checks the certificate against that name.
import * as grpc from '@grpc/grpc-js';
import type { LookupAddress } from 'node:dns';
import { outboundRefusalOf, type OutboundPolicy } from './outbound-policy.js';

const { registerResolver, splitHostPort, statusOrFromError, statusOrFromValue } = grpc.experimental;

const SCHEME = 'wsa-outbound';
/** The channel option naming the policy a channel's resolver applies (an id: channel options are compared by value). */
const POLICY_OPTION = 'wsa.outbound_policy';
/** A failed or refused resolution is tried again no sooner than this (grpc-js asks again on its own backoff too). */
const MIN_RESOLUTION_INTERVAL_MS = 1_000;

const policies = new Map<string, OutboundPolicy>();
const idsOf = new WeakMap<OutboundPolicy, string>();

class PolicyResolver implements grpc.experimental.Resolver {
  private readonly host: string;
  private readonly port: number;
  private readonly policy: OutboundPolicy | undefined;
  private resolving = false;
  private destroyed = false;
  private lastAt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    target: grpc.experimental.GrpcUri,
    private readonly listener: grpc.experimental.ResolverListener,
    options: grpc.ChannelOptions,
  ) {
    const hostPort = splitHostPort(target.path);
    this.host = hostPort?.host ?? target.path;
    this.port = hostPort?.port ?? 443;
    this.policy = policies.get(String(options[POLICY_OPTION]));
  }

  updateResolution(): void {
    this.destroyed = false;
    if (this.resolving || this.timer) return;
    const wait = this.lastAt + MIN_RESOLUTION_INTERVAL_MS - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.updateResolution();
      }, wait);
      this.timer.unref();
      return;
    }
    this.resolving = true;
    this.lastAt = Date.now();
    const report = (error: Error | null, addresses: LookupAddress[]) => {
      this.resolving = false;
      if (this.destroyed) return;
      if (error) {
        // The refusal's own sentence is the call's status details (`outbound_refused: … is …`).
        const details =
          outboundRefusalOf(error)?.message ?? `could not resolve ${this.host}: ${(error as NodeJS.ErrnoException).code ?? error.message}`;
        this.listener(statusOrFromError({ code: grpc.status.UNAVAILABLE, details, metadata: new grpc.Metadata() }), {}, null, '');
        return;
      }
      this.listener(statusOrFromValue(addresses.map(({ address }) => ({ addresses: [{ host: address, port: this.port }] }))), {}, null, '');
    };
    if (!this.policy) {
      // A channel built without a policy is a programming error: refuse rather than connect unchecked.
      process.nextTick(() => report(new Error('no outbound policy was given to this gRPC channel'), []));
      return;
    }
    this.policy.lookup(this.host, { all: true }, (error, addresses) => report(error, addresses as LookupAddress[]));
  }

  destroy(): void {
    this.destroyed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  static getDefaultAuthority(target: grpc.experimental.GrpcUri): string {
    return target.path;
  }
}

let registered = false;

/**
 * The id channels name `policy` by (clients keyed by it stay apart across allowances). Policies are
 * few — one per deployment, a few in tests — and are kept for the process's life.
 */
export function policyId(policy: OutboundPolicy): string {
  let id = idsOf.get(policy);
  if (!id) {
    id = String(policies.size + 1);
    idsOf.set(policy, id);
    policies.set(id, policy);
  }
  return id;
}

/**
 * The target and channel options of a gRPC channel to `host:port` whose every connection goes
 * through `policy`: pass both to the client's constructor (with the channel's other options).
 * `host` as a URL's `hostname` gives it (IPv6 in brackets).
 */
export function policyChannel(
  policy: OutboundPolicy,
  host: string,
  port: number | string,
): { target: string; options: grpc.ChannelOptions } {
  if (!registered) {
    registerResolver(SCHEME, PolicyResolver);
    registered = true;
  }
  const id = policyId(policy);
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return { target: `${SCHEME}:${bare.includes(':') ? `[${bare}]` : bare}:${port}`, options: { [POLICY_OPTION]: id } };
}
