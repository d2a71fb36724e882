/**
 * Which addresses a webhook may be delivered to. Deployed: only public unicast addresses, so a
 * subscriber's URL cannot reach the function's own network, the instance metadata service or
 * anything private. Locally: also loopback, where the developer's receivers listen.
 */
import { BlockList, isIP } from 'node:net';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the instance metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (::a.b.c.d, deprecated: never public)
  ['::ffff:0:0:0', 96], // IPv4-translated (::ffff:0:a.b.c.d, SIIT: never a public destination)
  ['64:ff9b::', 96], // NAT64, may reach a private IPv4
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, may embed a private IPv4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Where deliveries may go. */
export interface AddressPolicy {
  /** Allow plain `http` and loopback addresses (the local runtime only). */
  readonly allowLoopback: boolean;
}

/** The deployed policy: `https` to public addresses only. */
export const PUBLIC_ONLY: AddressPolicy = { allowLoopback: false };

/** Why a subscriber URL is refused before anything is resolved, or `undefined`. */
export function urlRefusal(url: URL, policy: AddressPolicy): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && policy.allowLoopback) return undefined;
  return `${url.protocol.slice(0, -1)} is not allowed: the URL must be https${policy.allowLoopback ? ' or http' : ''}`;
}

/** Why `address` may not be connected to, or `undefined` when it may. */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries. (BlockList matches an
  // IPv4 address against IPv6 rules as mapped, so no ::ffff:0:0/96 rule can be listed above.)
  const mapped = mappedIpv4(address);
  if (mapped) return addressRefusal(mapped, policy);
  if (policy.allowLoopback && LOOPBACK.check(address, type)) return undefined;
  if (NOT_PUBLIC.check(address, type)) return `${address} is not a public address`;
  return undefined;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d` or `::ffff:hhhh:hhhh`). */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^(?:0{0,4}:){0,4}:?:ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^(?:0{0,4}:){0,4}:?:ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
