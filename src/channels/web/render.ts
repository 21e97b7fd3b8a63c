/**
 * Rendering a page: every template gets the CSRF token of the current session, the formatting helpers and who is
 * logged in. Templates escape every value (`<%= %>`); nothing from a customer or an operator is ever inserted raw.
 */
import { FORMATS, formatList, ORDER_MEDIA_TYPES } from '../../intake/formats/index.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError } from '../../domain/errors.ts';
import { csrfUserInfo } from './sessions.ts';
import { changeMessage } from '../../render/lifecycle-text.ts';
import {
  actionLabel, actorLabel, attachment, channelLabel, dateLabel, dateTimeFormatter, detailLabel, detailValue, eventLabel, fileErrors, formErrors, orderErrors,
  productionLabel, roleLabel, stateLabel, submissionState,
} from './format.ts';

export interface PageData {
  title: string;
  nav?: string;
  /** Shown in the header: operator e-mail or customer code and name. */
  me?: string;
  script?: string;
  [key: string]: unknown;
}

const formatters = new Map<string, ReturnType<typeof helpers>>();

/** The order formats as the upload pages name and accept them (the registry's, so a new format shows up there). */
const ORDER_FILES = {
  list: formatList('it'),
  accept: [...FORMATS.flatMap((f) => f.extensions.map((e) => `.${e}`)), ...ORDER_MEDIA_TYPES].join(','),
};

function helpers(timeZone: string) {
  return {
    dateTime: dateTimeFormatter(timeZone), date: dateLabel, actionLabel, actorLabel, detailLabel, detailValue, eventLabel, channelLabel, stateLabel, submissionState,
    productionLabel, roleLabel, fileErrors, formErrors, orderErrors, changeMessage, orderFiles: ORDER_FILES,
  };
}

export function fmtFor(timeZone: string) {
  let f = formatters.get(timeZone);
  if (!f) formatters.set(timeZone, (f = helpers(timeZone)));
  return f;
}

export function page(req: FastifyRequest, reply: FastifyReply, area: 'console' | 'portale', template: string, timeZone: string, data: PageData) {
  const csrf = reply.generateCsrf({ userInfo: csrfUserInfo(req) });
  return reply.type('text/html; charset=utf-8').view(template, { ...data, area, csrf, fmt: fmtFor(timeZone) });
}

export function download(reply: FastifyReply, name: string, type: string, body: Buffer | string) {
  return reply
    .header('content-disposition', attachment(name))
    .header('x-content-type-options', 'nosniff')
    .type(type)
    .send(body);
}

/** Ids in URLs are UUIDs; anything else is refused before any lookup (no path tricks reach the store). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function idParam(v: unknown): string {
  if (typeof v !== 'string' || !UUID.test(v)) throw new IntakeError('NOT_FOUND');
  return v.toLowerCase();
}

/** A string query/form value, trimmed, or undefined when absent or blank. Arrays (repeated keys) are refused. */
export function str(v: unknown, max = 200): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t.slice(0, max);
}

/** The request's source address for login throttling. */
export function sourceOf(req: FastifyRequest): string {
  return (req.ip ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
}

/** The instants both stores compare: PostgreSQL reads years 1 to 9999 only (no year 0, not JavaScript's ±YYYYYY). */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An instant from a URL (a date filter, a page cursor) as ISO text the store can compare with its times: one outside
 * those years still means "before everything" or "after everything", and is moved to the first or last one.
 */
export function storableIso(t: number): string {
  return new Date(Math.min(LAST_INSTANT, Math.max(FIRST_INSTANT, t))).toISOString();
}

/** Keyset cursor in a URL: `<iso time>_<id>`. */
export function cursorOf(at: string, id: string): string {
  return `${at}_${id}`;
}

export function parseCursor(v: unknown): { at: string; id: string } | undefined {
  const s = str(v, 100);
  if (!s) return undefined;
  const i = s.lastIndexOf('_');
  const at = s.slice(0, i);
  const id = s.slice(i + 1);
  if (i < 0 || Number.isNaN(Date.parse(at)) || !UUID.test(id)) return undefined;
  return { at: storableIso(Date.parse(at)), id };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
