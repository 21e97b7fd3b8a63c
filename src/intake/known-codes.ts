/**
 * The codes the catalog is known to hold, remembered by the intake process. Articles and units are only ever
 * added or updated (imports upsert; nothing deletes them), so a code found once exists for good: remembering it
 * answers exactly what the store would. Codes not found are asked again every time (an import may add them at
 * any moment, from this process or another instance). Saves the store one or two queries per order on the hot
 * path: on PostgreSQL two round trips of every REST request.
 */

/**
 * At most this many codes are remembered per kind: a catalog of a printing company is thousands of articles; the
 * bound keeps a flood of made-up codes that do exist from growing the set without limit (oldest forgotten first).
 */
export const MAX_KNOWN_CODES = 100_000;

export type KnownLookup = (codes: readonly string[]) => Promise<Set<string>>;

/** Wraps a store lookup (`knownArticles`, `knownUnits`) with the memory of codes found. */
export function rememberKnown(lookup: KnownLookup, max = MAX_KNOWN_CODES): KnownLookup {
  const known = new Set<string>();
  return async (codes) => {
    const missing = codes.filter((c) => !known.has(c));
    if (missing.length === 0) return new Set(codes);
    const found = await lookup(missing);
    for (const c of found) {
      if (known.size >= max) known.delete(known.values().next().value as string);
      known.add(c);
    }
    return new Set(codes.filter((c) => known.has(c) || found.has(c)));
  };
}
