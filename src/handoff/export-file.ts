/**
 * Hot-folder export: what file an event becomes, and how it is written so a watching workflow (Enfocus Switch,
 * Prinect, a script polling the folder) never sees a partial file.
 *
 * Names: `<numero_ordine>_<event id>.<json|xml|xjdf>`, e.g. `2026-000123_0193a1b2-….xjdf`. numero_ordine first, so
 * a listing sorts by order number within a year (and the year leads); the event id makes the name unique (a
 * redelivery after a crash writes the same name again, with the same content). A new version of an order says so in
 * its name, `<numero_ordine>-v<versione>_<event id>` (`2026-000123-v2_…`), and a cancellation
 * `<numero_ordine>-annullato_<event id>`: a workflow sees each version and the cancellation as new files beside the
 * first, never one written over another. Both parts are checked against a
 * strict pattern (letters, digits, '-') before use: no separator, no '..', nothing a name could smuggle in.
 *
 * Writing: the content goes to `.<name>.tmp` in the same folder (a dot file: hot-folder tools skip hidden files),
 * opened exclusively and never through a symbolic link, fsynced, renamed onto the final name (atomic within one
 * file system), and the folder is fsynced so the rename itself survives a power cut. A missing folder is NOT
 * created: it is usually a share that is not mounted, and files written underneath the mount point would be lost
 * from view. Any error leaves the delivery pending, to be tried again.
 */
import { constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { OrderEvent } from '../domain/order-events.ts';
import type { ExportFormat } from '../domain/store/handoff.ts';
import { xmlText } from './xml-escape.ts';

const SAFE_PART = /^[A-Za-z0-9][A-Za-z0-9-]{0,99}$/;

export function exportFileName(event: Pick<OrderEvent, 'id' | 'type' | 'data'>, format: ExportFormat): string {
  if (!SAFE_PART.test(event.id)) throw new Error(`event id ${JSON.stringify(event.id).slice(0, 80)} cannot be part of a file name`);
  const numero = typeof event.data.numero_ordine === 'string' && SAFE_PART.test(event.data.numero_ordine) ? event.data.numero_ordine : 'ordine';
  return `${numero}${lifecycleMark(event)}_${event.id}.${format}`;
}

function lifecycleMark(event: Pick<OrderEvent, 'type' | 'data'>): string {
  const v = event.data.versione;
  if (event.type === 'ordine.modificato' && typeof v === 'number' && Number.isInteger(v) && v > 0) return `-v${v}`;
  return event.type === 'ordine.annullato' ? '-annullato' : '';
}

/** Element names for the items of a list in the XML export. */
const ITEM_NAMES: Record<string, string> = { righe: 'riga', errori: 'errore', message: 'messaggio' };

function xmlName(key: string): string {
  const n = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(n) ? n : `_${n}`;
}

function xmlValue(key: string, value: unknown, indent: string): string[] {
  const name = xmlName(key);
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) {
    const item = ITEM_NAMES[key] ?? 'voce';
    return [`${indent}<${name}>`, ...value.flatMap((v) => xmlValue(item, v, `${indent}  `)), `${indent}</${name}>`];
  }
  if (typeof value === 'object') {
    return [`${indent}<${name}>`, ...Object.entries(value).flatMap(([k, v]) => xmlValue(k, v, `${indent}  `)), `${indent}</${name}>`];
  }
  return [`${indent}<${name}>${xmlText(String(value))}</${name}>`];
}

/** The order as `<ordine>` with the element names of the intake XML format, led by the event's id and type. */
export function renderXmlExport(event: OrderEvent): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ordine>',
    ...xmlValue('id_evento', event.id, '  '),
    ...xmlValue('tipo_evento', event.type, '  '),
    ...Object.entries(event.data).flatMap(([k, v]) => xmlValue(k, v, '  ')),
    '</ordine>',
  ];
  return `${lines.join('\n')}\n`;
}

/** Write `content` as `dir/name` so that the name appears only complete and on disk. */
export async function writeExportFile(dir: string, name: string, content: string): Promise<void> {
  if (!path.isAbsolute(dir)) throw new Error(`the export folder ${dir} is not an absolute path`);
  const final = path.join(dir, name);
  const temp = path.join(dir, `.${name}.tmp`);
  if (path.dirname(final) !== path.resolve(dir)) throw new Error(`${name} is not a plain file name`);
  // A temporary file left by a crash (or planted) is removed, not followed: O_EXCL|O_NOFOLLOW below then opens a
  // fresh file, so a symbolic link in the folder can never make the service write elsewhere.
  await unlink(temp).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
  const fh = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await fh.writeFile(content, 'utf8');
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  await rename(temp, final);
  const d = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
