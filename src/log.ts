/**
 * Structured logs (pino, one JSON object per line). The composition root creates the one logger and passes it
 * down; modules take child loggers, never a global.
 */
import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'order-intake' },
    // Secrets never reach the log even if a header object is logged whole by mistake.
    redact: ['req.headers["x-api-key"]', 'req.headers["service-x-key"]', 'req.headers.authorization', '*.password'],
  });
}
