/**
 * Names in the virtual tree: which uploads are temporary, and what each stored file is called in a listing.
 */
import { formatter } from '../../render/local-time.ts';

/**
 * Suffixes of the names clients give a file while it is still arriving: WinSCP `.filepart`, FileZilla and many
 * scripts `.part`/`.tmp`, browsers `.crdownload`, and `name.partial`. Such files wait in the spool and become an
 * order file only when renamed to a final name.
 */
const TEMPORARY_SUFFIXES = ['.tmp', '.temp', '.part', '.partial', '.filepart', '.crdownload'];

/**
 * The one rule for temporary names: a name starting with '.' (hidden files, rsync's `.name.XXXXXX`) or ending with
 * one of TEMPORARY_SUFFIXES, ignoring case.
 */
export function isTemporaryName(name: string): boolean {
  if (name.startsWith('.')) return true;
  const lower = name.toLowerCase();
  return TEMPORARY_SUFFIXES.some((s) => lower.endsWith(s) && lower.length > s.length);
}

const COMPACT = {
  year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
} as const;

/** `20261122-031500` in the service's time zone: sortable, and valid in a file name on every system. */
export function compactTime(iso: string, timeZone: string): string {
  const parts = formatter('en-GB', timeZone, COMPACT).formatToParts(new Date(iso));
  const p = (t: string) => parts.find((x) => x.type === t)?.value ?? '00';
  return `${p('year')}${p('month')}${p('day')}-${p('hour')}${p('minute')}${p('second')}`;
}

/** `ordine.csv` + tag → `ordine.<tag>.csv`; a name without extension gets the tag at the end. */
export function tagName(name: string, tag: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return `${name}.${tag}`;
  return `${name.slice(0, dot)}.${tag}${name.slice(dot)}`;
}

export interface Nameable {
  id: string;
  fileName?: string;
  receivedAt: string;
}

/**
 * Listing names for a customer's uploads, unique across the whole tree so that a file keeps its name when it moves
 * from /ordini to elaborati or scartati, and its outcome file is `<that name>.esito.json`.
 *
 * The rule (documented for customers in the README, "Sending orders by FTP or SFTP"): the most recent upload of a name is listed under the
 * name as uploaded; every older upload of the same name gets its receive time before the extension,
 * `ordine.20261122-031500.csv`; two uploads within the same second add `-2`, `-3`, … in upload order.
 * A name therefore depends only on uploads of the same name, never on unrelated files.
 */
export function displayNames<T extends Nameable>(items: readonly T[], timeZone: string): Map<string, T> {
  const newestFirst = [...items].sort((a, b) => (a.receivedAt === b.receivedAt ? (a.id < b.id ? 1 : -1) : a.receivedAt < b.receivedAt ? 1 : -1));
  const byName = new Map<string, T>();
  // Older uploads per "base name + second", oldest first, named after every plain name is taken.
  const older = new Map<string, { base: string; stamp: string; items: T[] }>();
  for (const item of newestFirst) {
    const base = item.fileName?.trim() || `file-${item.id}`;
    if (!byName.has(base)) {
      byName.set(base, item);
      continue;
    }
    const stamp = compactTime(item.receivedAt, timeZone);
    const key = `${base}\u0000${stamp}`;
    const group = older.get(key) ?? { base, stamp, items: [] };
    group.items.unshift(item);
    older.set(key, group);
  }
  for (const { base, stamp, items: group } of older.values()) {
    group.forEach((item, i) => {
      let name = tagName(base, i === 0 ? stamp : `${stamp}-${i + 1}`);
      // A stamped name can equal a file really uploaded under that name: the real one keeps it.
      while (byName.has(name)) name = tagName(name, item.id.slice(-6));
      byName.set(name, item);
    });
  }
  return byName;
}
