// HTTP/1.1 over a raw socket, for what fetch and inject() cannot send: absolute-form request
// targets, repeated headers, a body announced but never sent. Resolves with the first complete
// response (its Content-Length read), so an answer that does not wait for the body is seen as
// such; rejects when none comes in time.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: () => any;
}

export function rawRequest(
  port: number,
  head: string[],
  opts: { body?: string; timeoutMs?: number } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`${head.join('\r\n')}\r\n\r\n${opts.body ?? ''}`),
    );
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${opts.timeoutMs ?? 10_000} ms to ${head[0]}`));
    }, opts.timeoutMs ?? 10_000);
    let got = Buffer.alloc(0);
    const done = (res: RawResponse | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (res instanceof Error) reject(res);
      else resolve(res);
    };
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = got.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (got.length - end - 4 < length) return;
      const body = got.subarray(end + 4, end + 4 + length).toString('utf8');
      done({
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body,
        json: () => JSON.parse(body),
      });
    });
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(new Error(`connection closed before a complete answer to ${head[0]}`)));
  });
}
