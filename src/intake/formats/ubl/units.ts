/**
 * A UBL line's Quantity/@unitCode (UN/ECE Recommendation 20, with Recommendation 21 package codes as `X…`) → the
 * line's unita_misura. The service's unit table already holds the Rec 20 codes (src/catalog/units.ts), so a current
 * code is kept as it is; the map turns the older two-letter forms some buyers' systems still write into today's code.
 * Operators map codes onto their own units with INTAKE_PEPPOL_UNITS (`C62=PZ,XBX=SC`), which wins over this map; a
 * code neither maps is kept as written, and stage B says whether the unit table knows it (an operator can add it).
 */
export const BUILT_IN_UNITS: Readonly<Record<string, string>> = {
  // Rec 20 revisions before 2009 listed package codes in two letters; Rec 21 in Rec 20 form prefixes them with X.
  BX: 'XBX', CT: 'XCT', PK: 'XPK', PA: 'XPA', RO: 'XRO', ST: 'XST', BG: 'XBG', EN: 'XEN', PF: 'XPX',
  // Numbers of things: the same unit under the names different systems use.
  NMB: 'C62', PCE: 'H87', NIU: 'C62',
};

/** The unita_misura a unitCode becomes: the operator's mapping, else the built-in one, else the code itself. */
export function unitOf(unitCode: string, operator: ReadonlyMap<string, string>): string {
  const code = unitCode.trim().toUpperCase();
  return operator.get(code) ?? BUILT_IN_UNITS[code] ?? code;
}
