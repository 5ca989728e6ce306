// Which IP addresses a live webhook may reach: public unicast only, after IANA's special-purpose
// address registries (IPv4 and IPv6) and IPv6 address-space registry.
// IPv4: private (10/8, 172.16/12, 192.168/16), loopback (127/8), link-local (169.254/16),
// carrier-grade NAT (100.64/10), "this network" (0/8), IETF protocol assignments (192.0.0/24),
// documentation, benchmarking (198.18/15), the old 6to4 relay anycast, multicast and reserved
// (224/4, 240/4) are refused.
// IPv6: only global unicast (2000::/3) is allowed — everything outside it is loopback,
// unspecified, IPv4-compatible, SIIT-translated (::ffff:0:a.b.c.d), local-use NAT64
// (64:ff9b:1::/48), discard and dummy prefixes (100::/64, 100:0:0:1::/64), SRv6 SIDs (5f00::/16),
// unique-local, link-local, site-local, multicast or unallocated — and inside it the IETF protocol
// assignments (2001::/23: Teredo 2001::/32, whose address hides another host's IPv4, benchmarking,
// ORCHID; the few anycast services in that block are no webhook receivers) and documentation
// (2001:db8::/32, 3fff::/20) are refused.
// IPv4 addresses embedded in IPv6 — mapped ::ffff:a.b.c.d, the well-known NAT64 prefix
// 64:ff9b::/96 and 6to4 2002::/16 — are judged by the IPv4 address they carry. Pure: no DNS here.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
/** IANA's global unicast space; no other IPv6 address is public. */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
/** Inside global unicast, the special-purpose blocks that are not globally reachable. */
for (const [net, prefix] of [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, …
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The 8 groups of an IPv6 address as numbers, or null if it is not one. */
function ipv6Groups(address: string): number[] | null {
  let a = address.split('%')[0]!.toLowerCase();
  if (!isIPv6(a)) return null;
  // A trailing dotted quad becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const b = dotted[1]!.split('.').map(Number);
    a =
      a.slice(0, -dotted[1]!.length) +
      `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head, tail] = a.includes('::') ? a.split('::') : [a, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill('0');
  const groups = [...h, ...fill, ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : null;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), if any. */
export function embeddedIPv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!); // 64:ff9b::/96
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4
  return null;
}

/** True for a public unicast address a live webhook may be delivered to. */
export function isPublicAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  if (isIPv4(a)) return !blocked.check(a, 'ipv4');
  if (!isIPv6(a.split('%')[0]!)) return false;
  const inner = embeddedIPv4(a);
  if (inner !== null) return isPublicAddress(inner);
  const v6 = a.split('%')[0]!;
  return globalUnicast.check(v6, 'ipv6') && !blocked.check(v6, 'ipv6');
}
