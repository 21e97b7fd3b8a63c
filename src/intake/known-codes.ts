/**
 * The codes the catalog is known to hold, remembered by the intake process. Saves the store one or two queries per
 * order on the hot path: on PostgreSQL two round trips of every REST request. Units are only ever added or updated,
 * so a unit found once exists for good and is remembered for good. Articles can be deactivated or removed
 * (`order-intake articles deactivate|remove`, the console), from this process or another one, so an article found
 * is remembered only for a few seconds (ARTICLE_MEMORY_MS): a hot article still costs one query per period, and a
 * deactivation takes effect on every instance within that period. Codes not found are asked again every time (an
 * import may add them at any moment, from this process or another instance).
 */

/**
 * At most this many codes are remembered per kind: a catalog of a printing company is thousands of articles; the
 * bound keeps a flood of made-up codes that do exist from growing the set without limit (oldest forgotten first).
 */
export const MAX_KNOWN_CODES = 100_000;

/** How long an article found is taken to exist without asking again (see above). */
export const ARTICLE_MEMORY_MS = 5_000;

export type KnownLookup = (codes: readonly string[]) => Promise<Set<string>>;

/**
 * Wraps a store lookup (`knownArticles`, `knownUnits`) with the memory of codes found, each for `ttlMs` from when it
 * was found (Infinity: for good).
 */
export function rememberKnown(lookup: KnownLookup, max = MAX_KNOWN_CODES, ttlMs = Infinity, now: () => number = Date.now): KnownLookup {
  /** Code → when it was found; insertion order is age order, as a code found again is deleted and set anew. */
  const known = new Map<string, number>();
  const fresh = (c: string, t: number) => {
    const at = known.get(c);
    return at !== undefined && t - at < ttlMs;
  };
  return async (codes) => {
    const t = now();
    const missing = codes.filter((c) => !fresh(c, t));
    if (missing.length === 0) return new Set(codes);
    const found = await lookup(missing);
    for (const c of missing) known.delete(c);
    for (const c of found) {
      if (known.size >= max) known.delete(known.keys().next().value as string);
      known.set(c, t);
    }
    return new Set(codes.filter((c) => fresh(c, t) || found.has(c)));
  };
}
