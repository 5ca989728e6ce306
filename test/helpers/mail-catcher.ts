// The mail catcher as a real process (mail-catcher/main.ts) on free ports, and reads of what it
// caught over its HTTP side: the tests send through a real SMTP server and read the message back.
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../config/index.ts';
import { stopProcess } from './processes.ts';

export interface CaughtSummary {
  id: number;
  envelope: { from: string | null; to: string[] };
  subject: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  replyTo: string[];
  messageId: string | null;
  headers: Record<string, string>;
  text: string | null;
  attachments: { filename: string | null; contentType: string; size: number }[];
}

export interface CatcherProcess {
  smtpUrl: string;
  pageUrl: string;
  messages(): Promise<CaughtSummary[]>;
  attachment(messageId: number, index: number): Promise<Buffer>;
  stop(): Promise<void>;
}

export async function startCatcherProcess(): Promise<CatcherProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'mail-catcher/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, MAIL_CATCHER_SMTP_PORT: '0', MAIL_CATCHER_HTTP_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ports = await new Promise<{ smtp: number; http: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mail catcher did not start: ${out}`)), 30_000);
    const read = (b: Buffer) => {
      out += b.toString();
      const m = /mail catcher listening smtp=(\d+) http=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ smtp: Number(m[1]), http: Number(m[2]) });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`mail catcher exited (${code}): ${out}`)));
  });
  const pageUrl = `http://127.0.0.1:${ports.http}`;
  return {
    smtpUrl: `smtp://127.0.0.1:${ports.smtp}`,
    pageUrl,
    async messages() {
      return (await (await fetch(`${pageUrl}/messages`)).json()) as CaughtSummary[];
    },
    async attachment(id, index) {
      const res = await fetch(`${pageUrl}/messages/${id}/attachments/${index}`);
      if (!res.ok) throw new Error(`attachment ${id}/${index}: ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    },
    stop: () => stopProcess(child, 'SIGTERM'),
  };
}
