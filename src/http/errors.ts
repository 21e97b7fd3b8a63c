/**
 * The one shape of an HTTP error body: `{statusCode, message, error, code}`. The status comes from the error catalog
 * (src/domain/errors.ts) by code, never from the caller, and `code` is the catalog's stable name a client can switch
 * on. Routes throw IntakeError(code, message); the server's error handler renders it (server.ts). The order routes'
 * shapes (A: the same object with a list of messages; B: `{esito, errori}`) gain only `code` (render.ts).
 */
import { ERROR_CATALOG, reasonPhrase, type ErrorCode } from '../domain/errors.ts';

export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error: string;
  code: ErrorCode;
}

/** The body for `code`; `message` defaults to the catalog's. 400s list their messages (shape A), others join them. */
export function errorBody(code: ErrorCode, message?: string | readonly string[]): ErrorBody {
  const statusCode = ERROR_CATALOG[code].http;
  const given = message === undefined ? ERROR_CATALOG[code].message : message;
  const text = typeof given === 'string' ? given : statusCode === 400 ? [...given] : given.join('; ');
  return { statusCode, message: text, error: reasonPhrase(statusCode), code };
}

/** The catalog's HTTP status for `code`. */
export function httpStatus(code: ErrorCode): number {
  return ERROR_CATALOG[code].http;
}

/** The least a reply must offer to be sent an error (fastify's reply, in a route or a hook). */
interface Replyable<R> {
  code(status: number): { send(body: ErrorBody): R };
}

/** Answers with the body for `code` at the catalog's status: what a route or hook returns to refuse a request. */
export function sendError<R>(reply: Replyable<R>, code: ErrorCode, message?: string | readonly string[]): R {
  const body = errorBody(code, message);
  return reply.code(body.statusCode).send(body);
}
