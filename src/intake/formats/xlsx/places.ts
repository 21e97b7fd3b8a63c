/**
 * Where in a sheet an order came from, so that errors name the cell: `ordini!E7` for programs (`cella` in the JSON
 * shapes) and "foglio ordini, riga 7, colonna Quantità" for people. Carried on a candidate under a symbol (like the
 * CSV rows, file-rows.ts), copied to the outcome of a refused order as `foglio_file`.
 */
import type { SheetPlaces } from '../../../domain/types.ts';

export type { SheetPlaces };

export const SHEET_PLACES: unique symbol = Symbol('sheet places');

export function withPlaces(candidate: object, places: SheetPlaces): void {
  Object.defineProperty(candidate, SHEET_PLACES, { value: places, enumerable: false });
}

export function sheetPlacesOf(candidate: unknown): SheetPlaces | undefined {
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  return (candidate as { [SHEET_PLACES]?: SheetPlaces })[SHEET_PLACES];
}

/** `ordini` → `ordini`; `Foglio 1` → `'Foglio 1'` (Excel quotes a sheet name that is not a plain word). */
export function quotedSheet(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`;
}

/** `righe[2].quantita`, `righe.2.quantita`, `data_ordine` → line (from 0, if any) and field. */
function splitField(campo: string): { line?: number; field: string } {
  const m = /^righe(?:\[(\d+)\]|\.(\d+))(?:\.(\w+))?$/.exec(campo);
  if (m) return { line: Number(m[1] ?? m[2]), field: m[3] ?? '' };
  return { field: campo };
}

/** The row and column of a field of the order (an order's own field: its first row). */
export function placeOf(p: SheetPlaces, campo: string): { row?: number; column?: { lettera: string; nome: string } } {
  const { line, field } = splitField(campo);
  const row = line === undefined ? p.righe[0] : p.righe[line];
  return { row, column: p.colonne[field] };
}

/** `ordini!E7`, or undefined when the field has no cell (a missing column, a line the sheet does not have). */
export function cellRef(p: SheetPlaces, campo: string): string | undefined {
  const { row, column } = placeOf(p, campo);
  if (row === undefined || column === undefined) return undefined;
  return `${quotedSheet(p.foglio)}!${column.lettera}${row}`;
}

/** "foglio ordini, riga 7, colonna Quantità" (the column as the sheet's header names it). */
export function cellWords(p: SheetPlaces, campo: string): string {
  const { row, column } = placeOf(p, campo);
  return [`foglio ${p.foglio}`, row !== undefined ? `riga ${row}` : '', column ? `colonna ${column.nome}` : ''].filter(Boolean).join(', ');
}
