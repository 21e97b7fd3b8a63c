/**
 * Structured logs (pino). The composition root creates the one logger and passes it down; modules take child
 * loggers, never a global.
 *
 * Format: one JSON object per line for log collectors; human lines (pino-pretty) for a person at a terminal.
 * `auto` picks pretty exactly when stdout is a terminal, so `serve` under systemd, Docker or a pipe stays JSON.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { build as pretty } from 'pino-pretty';

export type Logger = PinoLogger;

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  /** INTAKE_LOG_FORMAT. Default auto. */
  format?: LogFormat;
  /** Where lines go (tests capture them); default stdout. */
  destination?: DestinationStream;
  /** Whether stdout is a terminal (for `auto`); default process.stdout.isTTY. */
  isTerminal?: boolean;
}

export function createLogger(level: string, opts: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: 'order-intake' },
    // Secrets never reach the log even if a header object is logged whole by mistake.
    redact: ['req.headers["x-api-key"]', 'req.headers["service-x-key"]', 'req.headers.authorization', '*.password'],
  };
  const terminal = opts.isTerminal ?? process.stdout.isTTY === true;
  const format = opts.format === undefined || opts.format === 'auto' ? (terminal ? 'pretty' : 'json') : opts.format;
  if (format === 'pretty') {
    // Synchronous: a person reads these, and the lines written just before process.exit must not be lost.
    const stream = pretty({
      colorize: terminal && opts.destination === undefined, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service',
      sync: true, ...(opts.destination ? { destination: opts.destination } : {}),
    });
    return pino(options, stream);
  }
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/**
 * A child logger that adds only the bindings its parent does not carry yet. pino writes every binding of the chain,
 * so a key bound twice (the SFTP server's `channel` and the tree's `channel` again) appeared twice in one JSON line,
 * which log stores reject or resolve each their own way. Where the values differ the parent's, the wider context,
 * is kept: a module that needs another value must use another key.
 */
export function childLogger(parent: Logger, bindings: Record<string, unknown>): Logger {
  const bound = parent.bindings();
  const fresh = Object.fromEntries(Object.entries(bindings).filter(([key]) => !Object.hasOwn(bound, key)));
  return Object.keys(fresh).length === 0 ? parent : parent.child(fresh);
}
