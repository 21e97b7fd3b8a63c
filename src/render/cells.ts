/**
 * The cells of an Excel order's errors in the JSON shapes (REST bodies, .esito.json outcome files): `cella` beside
 * each shape B `campo`, and beside shape A's messages a `celle` list of {campo, cella}, one per field they name.
 */
import type { FieldError, SheetPlaces } from '../domain/types.ts';
import { cellRef } from '../intake/formats/xlsx/places.ts';

export function withCells(errori: FieldError[], sheet: SheetPlaces | undefined): FieldError[] {
  if (!sheet) return errori;
  return errori.map((e) => {
    const cella = cellRef(sheet, e.campo);
    return cella ? { ...e, cella } : e;
  });
}

/** `righe.1.quantita must be a positive number` → {campo: 'righe[1].quantita', cella: 'ordini!F3'}; each field once. */
export function messageCells(messages: readonly string[], sheet: SheetPlaces): { campo: string; cella: string }[] {
  const out = new Map<string, string>();
  for (const m of messages) {
    const campo = (m.split(' ')[0] ?? '').replace(/^righe\.(\d+)/, 'righe[$1]');
    const cella = cellRef(sheet, campo);
    if (cella && !out.has(campo)) out.set(campo, cella);
  }
  return [...out].map(([campo, cella]) => ({ campo, cella }));
}
