/**
 * Where a delivery connects: the addresses its host resolves to now, each allowed by the address
 * policy (DNS can change after a subscriber is added), or why none may be used. Resolution asks
 * the DNS servers through c-ares (`dns.promises.Resolver`), never `dns.lookup`: getaddrinfo runs
 * on libuv's four threads, so a few names whose servers never answer held every other lookup of
 * the sandbox, and the stuck calls outlived the invocation. Each host gets its own resolver and
 * deadline (cancelled at the deadline, touching no other host) and is resolved once per batch.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { addressRefusal, urlRefusal, type AddressPolicy } from '../webhook/address-policy';

/** How long a host's resolution may take, in seconds (then the attempt fails, the receiver's). */
export const DNS_DEADLINE_SECONDS = 5;

/** The addresses to connect to, all allowed, or why there are none. */
export type Destination =
  | { readonly addresses: readonly string[] }
  | { readonly refused: string }
  | { readonly unresolved: string };

/** How hosts are resolved. */
export interface ResolverOptions {
  /** DNS servers (`ip` or `ip:port`). @default - the system's (`/etc/resolv.conf`) */
  readonly servers?: readonly string[];
  /** @default DNS_DEADLINE_SECONDS × 1000 */
  readonly deadlineMs?: number;
}

/** One batch's resolutions: a host is resolved at most once, whatever the number of deliveries. */
export class BatchResolver {
  private readonly hosts = new Map<string, Promise<Destination>>();

  constructor(
    private readonly policy: AddressPolicy,
    private readonly options: ResolverOptions = {},
  ) {}

  /** Where a delivery to `url` may connect. Never throws. */
  destination(url: URL): Promise<Destination> {
    const refusedUrl = urlRefusal(url, this.policy);
    if (refusedUrl) return Promise.resolve({ refused: refusedUrl });
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    let found = this.hosts.get(host);
    if (!found) this.hosts.set(host, (found = this.resolveChecked(host)));
    return found;
  }

  private async resolveChecked(host: string): Promise<Destination> {
    const resolved = await this.resolve(host);
    if ('unresolved' in resolved) return resolved;
    const refused = resolved.addresses.map((a) => addressRefusal(a, this.policy)).find(Boolean);
    if (refused) return { refused: isIP(host) ? refused : `${host}: ${refused}` };
    return resolved;
  }

  private async resolve(
    host: string,
  ): Promise<{ addresses: string[] } | { readonly unresolved: string }> {
    if (isIP(host)) return { addresses: [host] };
    // RFC 6761: localhost names are loopback, without asking DNS (c-ares reads no hosts file).
    if (host === 'localhost' || host.endsWith('.localhost'))
      return { addresses: ['127.0.0.1', '::1'] };
    const deadlineMs = this.options.deadlineMs ?? DNS_DEADLINE_SECONDS * 1000;
    const resolver = new dns.Resolver({ timeout: Math.min(deadlineMs, 2_000), tries: 2 });
    if (this.options.servers) resolver.setServers([...this.options.servers]);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), deadlineMs);
    });
    try {
      const answers = await Promise.race([
        Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]),
        deadline,
      ]);
      if (answers === 'deadline') {
        return { unresolved: `${host}: no DNS answer within ${deadlineMs / 1000} s` };
      }
      const addresses = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
      if (addresses.length > 0) return { addresses };
      const error = answers.find((a) => a.status === 'rejected')?.reason as NodeJS.ErrnoException;
      return { unresolved: `${host}: ${error?.code ?? 'no address'}` };
    } finally {
      clearTimeout(timer);
      resolver.cancel();
    }
  }
}
