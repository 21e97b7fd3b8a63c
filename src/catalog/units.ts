/**
 * The units of measure known out of the box. Order lines name their unit by code; a code not in the store's
 * unit table is a business error, so this list decides what customers can send on day one (operators add
 * more with `order-intake units add`).
 *
 * Two families, codes upper-case:
 * - UN/ECE Recommendation 20 codes (what ERPs and e-invoices use), checked against revision 17. The packaging
 *   units that older revisions listed as two-letter codes (BX, CT, PK, RO, ST, …) were withdrawn from Rec 20;
 *   their current form is the Rec 21 package code with an X prefix (XBX, XCT, …), which Rec 20 users accept,
 *   so those are the ones listed.
 * - The abbreviations Italian management software prints (PZ, CF, RS, …). Two of them are also Rec 20 codes
 *   with another meaning: MC (microgram) and RT (revenue ton mile). A printing company's customers mean
 *   "metro cubo" and "rotolo", so the Italian meaning wins. ML is read as "metro lineare" (banners, rolls),
 *   the common use in Italian print shops; millilitres are MLT.
 */
import type { Unit } from '../domain/store/store.ts';

const REC20: readonly Unit[] = [
  { code: 'C62', description: 'Unità (uno)' },
  { code: 'H87', description: 'Pezzo' },
  { code: 'EA', description: 'Ciascuno' },
  { code: 'NAR', description: 'Numero di articoli' },
  { code: 'SET', description: 'Set' },
  { code: 'PR', description: 'Paio' },
  { code: 'CEN', description: 'Centinaio' },
  { code: 'MIL', description: 'Migliaio' },
  { code: 'T3', description: 'Migliaio di pezzi' },
  { code: 'RM', description: 'Risma' },
  { code: 'KGM', description: 'Chilogrammo' },
  { code: 'GRM', description: 'Grammo' },
  { code: 'TNE', description: 'Tonnellata' },
  { code: 'MTR', description: 'Metro' },
  { code: 'CMT', description: 'Centimetro' },
  { code: 'MMT', description: 'Millimetro' },
  { code: 'KMT', description: 'Chilometro' },
  { code: 'LM', description: 'Metro lineare' },
  { code: 'MTK', description: 'Metro quadrato' },
  { code: 'MTQ', description: 'Metro cubo' },
  { code: 'LTR', description: 'Litro' },
  { code: 'MLT', description: 'Millilitro' },
  // Rec 21 package codes in their Rec 20 form.
  { code: 'XBX', description: 'Scatola' },
  { code: 'XCT', description: 'Cartone' },
  { code: 'XPK', description: 'Confezione' },
  { code: 'XPA', description: 'Pacchetto' },
  { code: 'XRO', description: 'Rotolo' },
  { code: 'XST', description: 'Foglio' },
  { code: 'XBG', description: 'Sacchetto' },
  { code: 'XEN', description: 'Busta' },
  { code: 'XPX', description: 'Pallet' },
];

const ITALIAN: readonly Unit[] = [
  { code: 'PZ', description: 'Pezzi' },
  { code: 'NR', description: 'Numero' },
  { code: 'KG', description: 'Chilogrammi' },
  { code: 'GR', description: 'Grammi' },
  { code: 'MT', description: 'Metri' },
  { code: 'ML', description: 'Metri lineari' },
  { code: 'MQ', description: 'Metri quadrati' },
  { code: 'MC', description: 'Metri cubi' },
  { code: 'LT', description: 'Litri' },
  { code: 'CF', description: 'Confezione' },
  { code: 'RS', description: 'Risma' },
  { code: 'FG', description: 'Foglio' },
  { code: 'CT', description: 'Cartone' },
  { code: 'SC', description: 'Scatola' },
  { code: 'RT', description: 'Rotolo' },
  { code: 'PL', description: 'Pallet' },
];

/** Copies of the entries above, so a caller changing an entry cannot change the lists themselves. */
export const DEFAULT_UNITS: Unit[] = [...REC20, ...ITALIAN].map((u) => ({ ...u }));

/** Unit codes: letters and digits, upper-cased; Rec 20 codes are at most 3 characters, local ones rarely more. */
export const UNIT_CODE_PATTERN = /^[A-Z0-9]{1,10}$/;
