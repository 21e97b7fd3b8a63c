/**
 * Logs of CLI commands go to stderr: stdout carries the command's result (often JSON piped into another
 * program), and a log line in it would corrupt that.
 */
import { pino } from 'pino';
import type { Logger } from '../log.ts';

export function cliLogger(level: string): Logger {
  return pino({ level, base: { service: 'order-intake' } }, pino.destination({ dest: 2, sync: true }));
}
