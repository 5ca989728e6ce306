// Connections per client address, and the process's own file-descriptor budget (http-limits.ts
// applies both):
// - at most HTTP_MAX_CONNECTIONS_PER_ADDRESS open connections from one peer address; past it a new
//   connection is answered `429 rate_limited` (problem+json, `Connection: close`) and closed at
//   once, so one client opening thousands of slow sockets holds a bounded share of the process and
//   everyone else is still served. Proxies named in TRUST_PROXY carry many clients and are not
//   limited here (the process-wide cap still is);
// - the process-wide cap never above the file-descriptor limit minus FD_RESERVE: past the fd
//   limit the kernel refuses to hand over new connections and Node can only reset them, a health
//   check's and a new client's included.
import { readFileSync } from 'node:fs';
import { BlockList, isIP, type Server, type Socket } from 'node:net';

/** Descriptors kept for everything that is not a client connection (pools, Redis, files, logs). */
export const FD_RESERVE = 200;

/** proxy-addr's names for address ranges (the ones TRUST_PROXY accepts). */
const NAMED_RANGES: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

/** The soft limit on open files of this process (Linux), or null where it cannot be read. */
export function fileDescriptorLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/** The process-wide cap that fits the descriptor limit (at least 1). */
export function connectionCap(configured: number, fdLimit: number | null): number {
  if (fdLimit === null) return configured;
  return Math.max(1, Math.min(configured, fdLimit - FD_RESERVE));
}

/** An IPv4 peer seen through a dual-stack socket (`::ffff:10.0.0.1`) counts as `10.0.0.1`. */
function peerAddress(socket: Socket): string | null {
  const a = socket.remoteAddress;
  if (!a) return null;
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}

function trustedPeers(trustProxy: string[] | null): BlockList {
  const list = new BlockList();
  for (const entry of trustProxy ?? []) {
    const named = NAMED_RANGES[entry];
    if (named) {
      for (const [net, bits, family] of named) list.addSubnet(net, bits, family);
      continue;
    }
    const [addr = '', bits] = entry.split('/');
    const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, family);
    else list.addSubnet(addr, Number(bits), family);
  }
  return list;
}

/** What a connection past its address's limit gets before it is closed. */
function refusal(limit: number): string {
  const body = JSON.stringify({
    type: '/docs/errors#rate_limited',
    title: 'Too many requests',
    status: 429,
    detail: `Too many open connections from this address (at most ${limit}): reuse or close idle ones`,
    code: 'rate_limited',
    limit,
  });
  return [
    'HTTP/1.1 429 Too Many Requests',
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Retry-After: 1',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Counts open connections per peer address and refuses those past `limit`; `onRefused` hears
 * each refusal (for a throttled warning).
 */
export function limitConnectionsPerAddress(
  server: Server,
  limit: number,
  trustProxy: string[] | null,
  onRefused: (address: string) => void,
): void {
  const trusted = trustedPeers(trustProxy);
  const open = new Map<string, number>();
  const answer = refusal(limit);
  server.on('connection', (socket: Socket) => {
    const address = peerAddress(socket);
    if (address === null || trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')) return;
    const n = (open.get(address) ?? 0) + 1;
    if (n > limit) {
      onRefused(address);
      socket.setTimeout(1000, () => socket.destroy());
      socket.write(answer, () => socket.destroy());
      return;
    }
    open.set(address, n);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
