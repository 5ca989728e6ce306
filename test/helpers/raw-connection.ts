// Raw TCP connections held the way greedy or hostile clients hold them: a request sent a byte at
// a time, a connection that never sends, one kept open across requests. Each records what the
// server sent and when it closed the connection (test/helpers/raw-http.ts sends one request and
// reads one answer).
import { connect, type Socket } from 'node:net';
import { waitFor } from './wait.ts';

export interface RawConnection {
  socket: Socket;
  /** Everything the server has sent so far. */
  received(): string;
  /** When the server ended or reset the connection (ms since the epoch), or null while open. */
  closedAt(): number | null;
  /** Whether the connection was accepted and is still open. */
  open(): boolean;
  /** Writes, ignoring errors on a socket the server has closed (that is what tests look for). */
  write(data: string | Buffer): void;
  /** Waits until the answer so far matches `re`. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Waits until the server closes the connection; returns when it did. */
  waitClosed(timeoutMs?: number): Promise<number>;
  close(): void;
}

export async function rawConnect(port: number, host = '127.0.0.1'): Promise<RawConnection> {
  const socket = connect({ port, host });
  let data = '';
  let closedAt: number | null = null;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (data += chunk));
  socket.on('error', () => {
    closedAt ??= Date.now();
  });
  socket.on('end', () => {
    closedAt ??= Date.now();
  });
  socket.on('close', () => {
    closedAt ??= Date.now();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const conn: RawConnection = {
    socket,
    received: () => data,
    closedAt: () => closedAt,
    open: () => closedAt === null,
    write(chunk) {
      if (!socket.destroyed && socket.writable) socket.write(chunk, () => {});
    },
    async waitFor(re, timeoutMs = 10_000) {
      await waitFor(() => re.test(data), timeoutMs, 10, `server output matching ${re}`);
      return data;
    },
    async waitClosed(timeoutMs = 10_000) {
      await waitFor(() => closedAt !== null, timeoutMs, 10, 'the server to close the connection');
      return closedAt!;
    },
    close() {
      socket.destroy();
    },
  };
  return conn;
}

/** An HTTP/1.1 request head with `Host` and the given headers, ending in the blank line. */
export function requestHead(method: string, path: string, headers: Record<string, string | number> = {}) {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Writes one byte every `everyMs` until stopped or the connection closes. */
export function drip(conn: RawConnection, everyMs: number): () => void {
  const timer = setInterval(() => {
    if (!conn.open()) return clearInterval(timer);
    conn.write('x');
  }, everyMs);
  return () => clearInterval(timer);
}
