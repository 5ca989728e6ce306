// Runs the local mail catcher on its own (npm start runs it beside the Hacienda simulator outside
// production). Reads its own environment, like the simulator: MAIL_CATCHER_HOST (127.0.0.1),
// MAIL_CATCHER_SMTP_PORT (4025; 0 picks a free port), MAIL_CATCHER_HTTP_PORT (4026). Prints one line
// with both ports, then the URLs; closes on SIGTERM/SIGINT.
import { startMailCatcher } from './catcher.ts';

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) {
    console.error(`Mail catcher configuration error: ${name}: expected a port number, got "${raw}"`);
    process.exit(1);
  }
  return n;
}

const host = process.env.MAIL_CATCHER_HOST || '127.0.0.1';
const catcher = await startMailCatcher({
  host,
  smtpPort: port('MAIL_CATCHER_SMTP_PORT', 4025),
  httpPort: port('MAIL_CATCHER_HTTP_PORT', 4026),
});
console.log(`mail catcher listening smtp=${catcher.smtpPort} http=${catcher.httpPort}`);
console.log(`  SMTP  smtp://${host}:${catcher.smtpPort}   page  http://${host}:${catcher.httpPort}/`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    catcher.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
