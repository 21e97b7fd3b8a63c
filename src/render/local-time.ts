/**
 * Times shown to people (outcome files, e-mail replies, file names) in the service's time zone.
 *
 * Why a cache: building an Intl.DateTimeFormat costs far more than using one (profiles of the mail and file
 * channels showed it per reply), and the service formats with a handful of zones and shapes only.
 */
const formats = new Map<string, Intl.DateTimeFormat>();

/** Bounded because the zone comes from configuration, not from senders; a few entries in practice. */
const MAX_FORMATS = 64;

export function formatter(locale: string, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    if (formats.size >= MAX_FORMATS) formats.clear();
    f = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    formats.set(key, f);
  }
  return f;
}

const DAY_MINUTE = { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' } as const;
const DAY_SECOND = { ...DAY_MINUTE, second: '2-digit' } as const;

/** `24/11/2026 18:20` (or `…:05` with seconds), as Italian readers write it. */
export function localTime(iso: string, timeZone: string, withSeconds = false): string {
  return formatter('it-IT', timeZone, withSeconds ? DAY_SECOND : DAY_MINUTE).format(new Date(iso)).replace(',', '');
}
