// The floor's HTTP part: the four exchanges one accepted invoice needs, as bare node:http requests
// and answers over loopback with keep-alive, at the sizes of this run: the create (the bench's
// invoice body, a real 201's size), the reception POST to Hacienda (the JSON with the base64
// signed XML; an empty 202), the status GET (the JSON with the base64 respuesta XML) and the
// webhook POST (the invoice.accepted body; a 2-byte 200). The server is a process of its own
// (bench/lib/floor-http-server.ts); both sides' CPU is counted: this process's own clock and the
// server's from /proc.
import http from 'node:http';
import { paced } from './floor-paced.ts';
import { round } from './http-load.ts';
import { freePort, startChild, stopChild, waitUntil } from './processes.ts';
import { cpuNsOf, ownCpuMs } from './proc-stats.ts';

export interface Exchange {
  name: string;
  method: 'GET' | 'POST';
  requestBytes: number;
  status: number;
  responseBytes: number;
}

export interface HttpFloor {
  cpu_ms_per_invoice: number;
  client_cpu_ms_per_invoice: number;
  server_cpu_ms_per_invoice: number;
  invoices: number;
  connections: number;
  exchanges: Exchange[];
}

function send(agent: http.Agent, port: number, x: Exchange, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: x.method,
        path: `/${x.name}`,
        headers: {
          authorization: `Bearer ${'k'.repeat(48)}`,
          ...(x.method === 'POST'
            ? { 'content-type': 'application/json', 'content-length': body.length }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          res.statusCode === x.status ? resolve() : reject(new Error(`${x.name}: ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(x.method === 'POST' ? body : undefined);
  });
}

/**
 * `invoices` × the four exchanges over `connections` keep-alive connections, after a warm-up; with
 * `rate`, one invoice's four exchanges at a time, `rate` invoices a second (floor-paced.ts).
 */
export async function measureHttpFloor(
  exchanges: Exchange[],
  invoices: number,
  connections = 4,
  rate: number | null = null,
): Promise<HttpFloor> {
  const port = await freePort();
  const answers = Object.fromEntries(exchanges.map((x) => [`/${x.name}`, [x.status, x.responseBytes]]));
  const child = startChild('floor-http', 'bench/lib/floor-http-server.ts', {
    FLOOR_PORT: String(port),
    FLOOR_ANSWERS: JSON.stringify(answers),
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const bodies = exchanges.map((x) => Buffer.alloc(x.requestBytes, 'b'));
  const one = async () => {
    for (const [i, x] of exchanges.entries()) await send(agent, port, x, bodies[i]!);
  };
  const run = async (n: number) => {
    let next = 0;
    const loop = async () => {
      while (next++ < n) await one();
    };
    await Promise.all(Array.from({ length: connections }, loop));
  };
  try {
    await waitUntil(
      'floor HTTP server',
      async () => (await fetch(`http://127.0.0.1:${port}/`)).status > 0,
      30_000,
      child,
    );
    await run(Math.max(50, Math.round(invoices / 5)));
    const server0 = cpuNsOf(child.pid);
    const cpu0 = process.cpuUsage();
    await (rate ? paced(invoices, rate, one) : run(invoices));
    const clientMs = ownCpuMs(cpu0);
    const serverMs = (cpuNsOf(child.pid) - server0) / 1e6;
    return {
      cpu_ms_per_invoice: round((clientMs + serverMs) / invoices, 4),
      client_cpu_ms_per_invoice: round(clientMs / invoices, 4),
      server_cpu_ms_per_invoice: round(serverMs / invoices, 4),
      invoices,
      connections: rate ? 1 : connections,
      exchanges,
    };
  } finally {
    agent.destroy();
    await stopChild(child, 5000);
  }
}
