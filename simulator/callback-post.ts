// Hacienda's callback POST (the status body as JSON to the `callbackUrl` a submission named),
// over Node's http/https with keep-alive agents: a callback receiver gets thousands of them, and
// a connection of their own for each would cost a TCP (and TLS) set-up every time. Resolves to the
// receiver's HTTP status; rejects on a transport failure or when the timeout passes. Idle pooled
// sockets are unreferenced by the agent, so they never keep a stopping simulator alive.
import http from 'node:http';
import https from 'node:https';

export type CallbackPost = (url: string, body: string, timeoutMs: number) => Promise<number>;

const POOL = { keepAlive: true, maxSockets: 16, maxFreeSockets: 4, timeout: 30_000 };
const agents = { http: new http.Agent(POOL), https: new https.Agent(POOL) };

export const postCallback: CallbackPost = (url, body, timeoutMs) =>
  new Promise<number>((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const req = (secure ? https : http).request(
      target,
      {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.resume();
      },
    );
    req.on('error', reject);
    req.end(body);
  });
