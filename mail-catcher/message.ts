// A message the mail catcher caught, as it keeps it: the parsed fields, the SMTP envelope, the
// attachments and the raw bytes. Shared by the server (catcher.ts) and its page (page.ts).
export interface CaughtAttachment {
  filename: string | null;
  contentType: string;
  size: number;
  content: Buffer;
}

export interface CaughtMessage {
  id: number;
  receivedAt: string;
  /** The SMTP envelope: who the server was asked to deliver to (BCC included). */
  envelope: { from: string | null; to: string[] };
  subject: string | null;
  from: string | null;
  to: string[];
  cc: string[];
  replyTo: string[];
  messageId: string | null;
  headers: Record<string, string>;
  text: string | null;
  attachments: CaughtAttachment[];
  raw: Buffer;
}
