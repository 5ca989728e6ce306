// The floor's HTTP server, a process of its own: a bare node:http server on FLOOR_PORT that reads
// each request's body whole and answers with the status and the number of bytes FLOOR_ANSWERS
// gives for its path (`{"/path": [status, bytes]}`), keep-alive. Its CPU is read from /proc by
// the bench (bench/lib/floor-http.ts).
import http from 'node:http';

const answers = new Map(
  Object.entries(JSON.parse(process.env.FLOOR_ANSWERS ?? '{}') as Record<string, [number, number]>).map(
    ([path, [status, bytes]]) => [path, { status, body: Buffer.alloc(bytes, 'a') }],
  ),
);
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    Buffer.concat(chunks);
    const a = answers.get(req.url ?? '') ?? { status: 404, body: Buffer.alloc(0) };
    res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': a.body.length });
    res.end(a.body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.FLOOR_PORT), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
