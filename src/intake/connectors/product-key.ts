/**
 * From a product in a ticket to an order line's article. Prepress systems name products in their own words
 * (ProductType "Brochure", DescriptiveName "Depliant A4 4+4"), so each connector carries a lookup table from
 * those words to the catalog's codice_articolo.
 *
 * The product's keys are tried in a fixed order, most specific first: an identifier (JDF @ProductID, XJDF
 * @ExternalID), then ProductType, then DescriptiveName. The first key found in the table wins. A product no key
 * matches keeps its first raw key as codice_articolo, so stage B reports "articolo sconosciuto" naming it.
 */
import type { ArticleLookup } from './types.ts';

/**
 * Unit used when the lookup row names none. PZ (pezzi) is in the built-in unit list (src/catalog/units.ts) and
 * is what a print run of finished products is counted in; JDF/XJDF Amount counts pieces of the product.
 */
export const DEFAULT_UNIT = 'PZ';

/** Trim, collapse inner white space, lower case: "  Depliant   A4 " and "depliant a4" are the same key. */
export function normaliseProductKey(key: string): string {
  return key.trim().replace(/\s+/g, ' ').toLowerCase();
}

export interface ProductKeys {
  identifier?: string | undefined;
  productType?: string | undefined;
  descriptiveName?: string | undefined;
}

export interface ResolvedArticle {
  codice_articolo?: string;
  unita_misura: string;
  /** The key that was looked up and found, or the one to add to the table (normalised); none when the product has none. */
  productKey?: string;
  /** True when the table named the article; false when the raw key stands in for it (stage B then judges it). */
  mapped: boolean;
}

/** The built-in keys of a product, most specific first. */
export function builtInKeys(keys: ProductKeys): string[] {
  return [keys.identifier, keys.productType, keys.descriptiveName].filter((k): k is string => k !== undefined && k.trim() !== '');
}

/**
 * The article of a product from its candidate keys, in order: the first key in the table wins. A product no key
 * matches keeps its first key as codice_articolo (an identifier may be the catalog code itself).
 */
export function resolveKeys(tried: readonly string[], lookup: ReadonlyMap<string, ArticleLookup>): ResolvedArticle {
  for (const key of tried) {
    const hit = lookup.get(normaliseProductKey(key));
    if (hit) return { codice_articolo: hit.codice_articolo, unita_misura: hit.unita_misura ?? DEFAULT_UNIT, productKey: normaliseProductKey(key), mapped: true };
  }
  const raw = tried[0]?.trim();
  return raw === undefined || raw === ''
    ? { unita_misura: DEFAULT_UNIT, mapped: false }
    : { codice_articolo: raw, unita_misura: DEFAULT_UNIT, productKey: normaliseProductKey(raw), mapped: false };
}

export function resolveArticle(keys: ProductKeys, lookup: ReadonlyMap<string, ArticleLookup>): ResolvedArticle {
  return resolveKeys(builtInKeys(keys), lookup);
}
