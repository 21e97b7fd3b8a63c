/**
 * Calendar days of the service's time zone (INTAKE_TIMEZONE) as instants: a customer asking for the orders "of 28
 * November" means the day as lived at the printer's, whatever UTC says.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** Offset of `timeZone` from UTC at instant `t` (ms), whole seconds. */
function offsetMs(t: number, timeZone: string): number {
  const p = Object.fromEntries(partsFormat(timeZone).formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) - Math.floor(t / 1000) * 1000;
}

/** Whether `s` is a real calendar date spelled YYYY-MM-DD (not 2026-02-30). */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === s;
}

/**
 * The instant (ISO, UTC) the local day `date` (YYYY-MM-DD) starts in `timeZone`, `plusDays` later. The offset is taken
 * again at the instant found, so a day that starts just after a daylight-saving change gets the offset then in force.
 */
export function localDayStart(date: string, timeZone: string, plusDays = 0): string {
  const wall = Date.parse(`${date}T00:00:00Z`) + plusDays * 86_400_000;
  const first = wall - offsetMs(wall, timeZone);
  return new Date(wall - offsetMs(first, timeZone)).toISOString();
}
