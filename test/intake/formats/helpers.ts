/** Shared assertions for the decoder tests. */
import assert from 'node:assert/strict';
import { IntakeError } from '../../../src/domain/errors.ts';
import type { ErrorCode } from '../../../src/domain/errors.ts';

/** Runs fn, asserts it throws an IntakeError with this code (and message), and returns the error. */
export function throwsIntake(fn: () => unknown, code: ErrorCode, message?: RegExp): IntakeError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  return assertIntakeError(caught, code, message);
}

/** Asserts `caught` is an IntakeError with this code (and message), with no internals in its text. */
export function assertIntakeError(caught: unknown, code: ErrorCode, message?: RegExp): IntakeError {
  assert.ok(caught instanceof IntakeError, `expected an IntakeError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (message) assert.match(caught.messages.join('\n'), message);
  // No stack frames or file system paths in what the customer reads.
  assert.doesNotMatch(caught.messages.join('\n'), /\bat .+:\d+:\d+|\/work\/|node_modules|\.ts\b/);
  return caught;
}

export const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
