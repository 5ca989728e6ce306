// How `npm start` shows its processes' output: each line prefixed with the process's name and, when
// readable logs are asked for (config.logPretty; by default when its output is a terminal, never in
// production), pino's JSON lines formatted by pino-pretty. Other lines pass through as they are.
import { prettyFactory } from 'pino-pretty';

export type LineFormat = (line: string) => string;

export function lineFormat(pretty: boolean, colour: boolean): LineFormat {
  if (!pretty) return (line) => line;
  const prettify = prettyFactory({
    colorize: colour,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return (line) => {
    if (!line.startsWith('{')) return line;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return line;
    }
    const log = parsed as { level?: unknown; time?: unknown };
    if (typeof log.level !== 'number' || log.time === undefined) return line;
    return prettify(parsed as Record<string, unknown>).replace(/\n$/, '');
  };
}

/** Resolves once nothing was printed for `quietMs` (the time of the last line: `last()`), or after `maxMs`. */
export async function untilQuiet(last: () => number, quietMs: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline && Date.now() - last() < quietMs)
    await new Promise((r) => setTimeout(r, Math.min(250, quietMs)));
}
