/**
 * The dashboard's figures: orders registered today and this week (service time zone) per channel and customer,
 * submissions of the week refused whole and those partly accepted (counted apart: their accepted orders are
 * registered, only the others need a correction), replies not sent, webhooks failing, and a bar chart of the week per channel drawn as inline SVG
 * geometry (no script, no inline style: the CSP forbids both).
 */
import type { WebContext } from '../context.ts';
import { channelLabel } from '../format.ts';
import { storableIso } from '../render.ts';
import type { OrderCount } from '../../../domain/store/web.ts';
import { failingWebhooks } from './webhooks.ts';

/** Offset of `timeZone` from UTC at instant `d`, in ms. */
function offsetMs(d: Date, timeZone: string): number {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  }).formatToParts(d).map((x) => [x.type, x.value]));
  return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) - Math.floor(d.getTime() / 1000) * 1000;
}

/** Midnight starting the day (and the ISO week, Monday) that holds `now`, in `timeZone`. */
export function dayAndWeekStart(now: Date, timeZone: string): { day: Date; week: Date } {
  const local = new Date(now.getTime() + offsetMs(now, timeZone));
  const midnightLocal = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
  const toUtc = (t: number) => new Date(t - offsetMs(new Date(t), timeZone));
  const dow = (local.getUTCDay() + 6) % 7;
  return { day: toUtc(midnightLocal), week: toUtc(midnightLocal - dow * 86_400_000) };
}

function byKey(rows: readonly OrderCount[], key: 'channel' | 'codice_cliente'): { label: string; count: number }[] {
  const m = new Map<string, number>();
  for (const r of rows) m.set(r[key], (m.get(r[key]) ?? 0) + r.count);
  return [...m].map(([k, count]) => ({ label: key === 'channel' ? channelLabel(k) : k, count })).sort((a, b) => b.count - a.count);
}

/** Bars for the chart: geometry only, computed here so the template just prints numbers. */
function bars(rows: { label: string; count: number }[]) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return rows.map((r, i) => ({ ...r, y: i * 28, width: Math.max(2, Math.round((r.count / max) * 300)) }));
}

export async function dashboardData(ctx: WebContext) {
  const { day, week } = dayAndWeekStart(new Date(), ctx.timeZone);
  const [today, thisWeek, refused, partial, pendingReplies, failedReplies, webhooks] = await Promise.all([
    ctx.store.orderCounts(day.toISOString()),
    ctx.store.orderCounts(week.toISOString()),
    ctx.store.countRefused(week.toISOString()),
    ctx.store.countPartial(week.toISOString()),
    ctx.store.listReplies({ state: 'pending', limit: 1000 }),
    ctx.store.listReplies({ state: 'failed', limit: 1000 }),
    failingWebhooks(ctx),
  ]);
  const weekByChannel = byKey(thisWeek, 'channel');
  return {
    todayTotal: today.reduce((n, r) => n + r.count, 0),
    weekTotal: thisWeek.reduce((n, r) => n + r.count, 0),
    todayByChannel: byKey(today, 'channel'),
    todayByCustomer: byKey(today, 'codice_cliente'),
    weekByCustomer: byKey(thisWeek, 'codice_cliente').slice(0, 20),
    chart: bars(weekByChannel),
    // countRefused holds the partly accepted ones too; counted once each, the two cards add up to it.
    refused: refused - partial,
    partial,
    repliesPending: pendingReplies.length,
    repliesFailed: failedReplies.length,
    webhooksFailed: webhooks.failed,
    webhooksRetrying: webhooks.retrying,
  };
}

/** The instant a local calendar day (YYYY-MM-DD) starts in `timeZone`; undefined for anything else. */
export function dayStart(date: string | undefined, timeZone: string, plusDays = 0): string | undefined {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const t = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(t)) return undefined;
  const local = t + plusDays * 86_400_000;
  return storableIso(local - offsetMs(new Date(local), timeZone));
}
