/**
 * What a person reads of an order's errors, in Italian: reply e-mails, outcome files (.esito.txt) and the web pages.
 *
 * The outcome keeps stage A messages in English, worded like class-validator, because REST and SOAP clients parse
 * them (spec, error shape A); this is the one translation for people. Stage A messages come from a closed set
 * (src/intake/validate.ts; test/render/people-errors.test.ts feeds every one of them through here), so each is read
 * back into its field and rule and said again as a sentence that names the field in words.
 *
 * Positions are given as a person can find them: for a CSV file the row of the file (from 1, the header counted, as
 * a spreadsheet numbers it), taken from the outcome's `righe_file`; for an Excel workbook the cell ("foglio ordini,
 * riga 7, colonna Quantità"), from its `foglio_file`; otherwise "ordine N, riga M", counted from 1.
 */
import type { ErrorCode } from '../domain/errors.ts';
import type { OrderOutcome } from '../domain/types.ts';
import { formatList } from '../intake/formats/registry.ts';
import { cellWords } from '../intake/formats/xlsx/places.ts';

/** A field in words, with its article ("la quantità", "l'unità di misura"). */
const FIELDS: Record<string, string> = {
  codice_cliente: 'il codice cliente',
  riferimento_ordine: "il riferimento dell'ordine",
  data_ordine: "la data dell'ordine",
  data_consegna: 'la data di consegna',
  codice_articolo: 'il codice articolo',
  quantita: 'la quantità',
  unita_misura: "l'unità di misura",
  righe: "le righe dell'ordine",
  ordine: "l'ordine",
  note: 'il testo delle note',
  motivo: 'il motivo',
  azione: "l'azione",
};

/** An error as a person reads it: where to look (empty when the whole order is meant) and what is wrong. */
export interface PeopleError {
  where: string;
  text: string;
}

/** `righe.1.quantita`, `righe[1].quantita`, `righe.1` → line 1 (from 0) and its field; else the order's field. */
function splitPath(path: string): { line?: number; field: string } {
  const m = /^righe(?:\[(\d+)\]|\.(\d+))(?:\.(\w+))?$/.exec(path);
  if (m) return { line: Number(m[1] ?? m[2]), field: m[3] ?? 'riga' };
  return { field: path };
}

function fieldWords(field: string): string {
  if (field === 'riga') return 'la riga';
  return FIELDS[field] ?? `il campo ${field}`;
}

/** How lines are placed: `oneOrder` for a page that shows one order alone (the order form), where "riga 2" is enough. */
export interface PlaceOptions {
  oneOrder?: boolean;
}

type Placed = Pick<OrderOutcome, 'index' | 'righe_file' | 'foglio_file'>;

/**
 * Where line `line` (from 0) of the order is: its cell in a workbook (`field`'s column), its row in a CSV file, or
 * its place in the order.
 */
export function linePlace(o: Placed, line: number, opts: PlaceOptions = {}, field?: string): string {
  if (o.foglio_file) return cellWords(o.foglio_file, field && field !== 'riga' ? `righe[${line}].${field}` : `righe[${line}]`);
  const row = o.righe_file?.[line];
  if (row !== undefined) return `riga ${row} del file`;
  return opts.oneOrder ? `riga ${line + 1}` : `ordine ${o.index + 1}, riga ${line + 1}`;
}

/** Where a field of the order itself is: its cell in a workbook (the order's first row); '' elsewhere. */
function orderPlace(o: Placed, field: string): string {
  return o.foglio_file && field !== 'ordine' && field !== 'righe' ? cellWords(o.foglio_file, field) : '';
}

/**
 * The rows of a CSV file an order came from, compressed: "riga 2 del file", "righe 2-4 e 9 del file"; of a sheet
 * (`sheet`): "foglio ordini, righe 2-4".
 */
export function orderRows(rows: readonly number[] | undefined, sheet?: string): string | undefined {
  if (!rows || rows.length === 0) return undefined;
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const spans: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    spans.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  // A large order scattered over a file would make a line longer than any reader follows.
  const shown = spans.length > 6 ? [...spans.slice(0, 5), 'altre'] : spans;
  const list = shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} e ${shown[shown.length - 1]}`;
  if (sheet !== undefined) return `foglio ${sheet}, ${sorted.length === 1 ? 'riga' : 'righe'} ${list}`;
  return sorted.length === 1 ? `riga ${list} del file` : `righe ${list} del file`;
}

/** Stage A rules, as validate.ts words them, and the Italian sentence for each (`f`: the field in words). */
const STAGE_A: [RegExp, (f: string, n?: string) => string][] = [
  [/^(\S+) should not be empty$/, (f) => `manca ${f}`],
  [/^(\S+) must be a string$/, (f) => `${f} deve essere un testo`],
  [/^(\S+) must not contain control characters$/, (f) => `${f} contiene caratteri di controllo, che non sono ammessi`],
  [/^(\S+) must not contain control characters other than line breaks and tabs$/, (f) => `${f} contiene caratteri di controllo, che non sono ammessi (solo a capo e tabulazione)`],
  [/^(\S+) must not contain half of a UTF-16 surrogate pair$/, (f) => `${f} contiene un carattere spezzato (metà di una coppia surrogata UTF-16)`],
  [/^(\S+) must be shorter than or equal to (\d+) characters$/, (f, n) => `${f} può avere al massimo ${n} caratteri`],
  [/^(\S+) must be a valid ISO 8601 date string.*$/, (f) => `${f} non è una data valida: va scritta come AAAA-MM-GG (per esempio 2026-03-15)`],
  [/^ordine must be an object$/, () => "l'ordine non è un oggetto con i campi dell'ordine"],
  [/^(\S+) must be an object$/, (f) => `${f} non ha la struttura prevista (codice articolo, quantità, unità di misura)`],
  [/^(\S+) must be a number.*$/, (f) => `${f} deve essere un numero`],
  [/^(\S+) must be a positive number$/, (f) => `${f} deve essere maggiore di zero`],
  [/^(\S+) must be one of the following values: (.+)$/, (f, n) => `${f} deve essere uno di questi valori: ${n}`],
  [/^(\S+) must be an array$/, (f) => `${f} devono essere un elenco`],
  [/^(\S+) must contain at least 1 elements$/, () => "l'ordine non ha nessuna riga: ne serve almeno una"],
  [/^(\S+) must contain no more than (\d+) elements$/, (_f, n) => `l'ordine ha più righe del massimo consentito (${Number(n).toLocaleString('it-IT')})`],
];

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * One stage A message as a person reads it, or undefined for a message this table does not know (the caller then
 * shows it as it is rather than lose it).
 */
export function stageAItalian(message: string, o: Placed = { index: 0 }, opts: PlaceOptions = {}): PeopleError | undefined {
  for (const [re, say] of STAGE_A) {
    const m = re.exec(message);
    if (!m) continue;
    const { line, field } = splitPath(m[1] ?? 'ordine');
    return { where: line === undefined ? orderPlace(o, field) : linePlace(o, line, opts, field), text: capitalise(say(fieldWords(field), m[2])) };
  }
  return undefined;
}

/** Every error of one refused order, in Italian, each once. */
export function orderErrorsItalian(o: OrderOutcome, opts: PlaceOptions = {}): PeopleError[] {
  const out: PeopleError[] = [];
  // A field told in both shapes (a refused customer code: English for programs, Italian for people; a value a decoder
  // of people's writing could not read, with its reason) is said once, by its Italian `errori` entry.
  const explained = new Set((o.errori ?? []).map((e) => e.campo));
  const fieldOf = (m: string) => (m.split(' ')[0] ?? '').replace(/^righe\.(\d+)/, 'righe[$1]');
  const messages = o.message ?? [];
  for (const m of messages) {
    if (explained.has(fieldOf(m))) continue;
    // "x should not be empty" is followed by "x must be a string" for a missing field: one sentence is enough.
    const missing = /^(\S+) must be a string$/.exec(m);
    if (missing && messages.includes(`${missing[1]} should not be empty`)) continue;
    out.push(stageAItalian(m, o, opts) ?? { where: '', text: m });
  }
  for (const e of o.errori ?? []) {
    const { line, field } = splitPath(e.campo);
    const place = line === undefined ? orderPlace(o, field) : linePlace(o, line, opts, field);
    // A value a decoder of people's writing could not read is quoted (`«1.000» è ambiguo…`): its field is named too.
    const quoted = e.messaggio.startsWith('«') ? fieldWords(field).replace(/^(il|la|le|l') ?/, '') : '';
    out.push({ where: [place, quoted].filter(Boolean).join(', '), text: e.messaggio });
  }
  return out;
}

/** One error as one line of text: "Riga 5 del file: la quantità deve essere un numero". */
export function errorLine(e: PeopleError): string {
  return e.where ? `${capitalise(e.where)}: ${e.text.charAt(0).toLowerCase()}${e.text.slice(1)}` : e.text;
}

/**
 * File-level errors (the file could not be read at all) as people read them. The decoders' messages are English
 * (they are also shape A messages of REST and SOAP); each known one is said again in Italian with its details (line,
 * byte, column name), and one not known here falls back to a sentence for its catalog code.
 */
/** The formats' names as the decoders' messages list them, and as people read them (the format registry's). */
const FORMATS_EN = formatList('en');
const FORMATS_IT = formatList('it');

const FILE_MESSAGES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^the file is empty$/, () => 'il file è vuoto'],
  [/^the file holds no order$/, () => 'il file non contiene nessun ordine'],
  [new RegExp(`^the file is (.+); send the order as ${FORMATS_EN}$`), (m) => `il file è ${kindWords(m[1]!)}: inviare l'ordine in formato ${FORMATS_IT}`],
  [new RegExp(`^(.+) is not accepted; send the order as ${FORMATS_EN}$`), (m) => `${foreignWords(m[1]!)} non è accettato: inviare l'ordine in formato ${FORMATS_IT}`],
  [new RegExp(`^the file is not ${FORMATS_EN}`), () => `il file non è in formato ${FORMATS_IT} (un file CSV deve cominciare con una riga d'intestazione che nomina codice_cliente)`],
  [/^CSV header must name the columns (.+) \(data_consegna and note optional\); missing: (.+)$/,
    (m) => `la riga d'intestazione del CSV deve nominare le colonne ${m[1]} (data_consegna e note sono facoltative); mancano: ${m[2]}`],
  [/^CSV header names the column (.+) more than once$/, (m) => `la riga d'intestazione del CSV nomina più volte la colonna ${m[1]}`],
  [/^CSV must start with a header row$/, () => "il CSV deve cominciare con una riga d'intestazione che nomina le colonne"],
  [/^CSV must not have more than (\d+) columns \(line (\d+) has more\)$/, (m) => `il CSV può avere al massimo ${m[1]} colonne (la riga ${m[2]} del file ne ha di più)`],
  [/^CSV has a quote that is never closed, opened on line (\d+)$/, (m) => `nel CSV una virgoletta aperta alla riga ${m[1]} del file non viene mai chiusa`],
  [/^CSV has a quoted cell longer than (\d+) characters, opened on line (\d+);/,
    (m) => `nel CSV una cella tra virgolette aperta alla riga ${m[2]} del file supera ${m[1]} caratteri: manca forse la virgoletta di chiusura?`],
  [/^CSV rows must not be longer than (\d+) characters \(line (\w+)\)$/, (m) => `le righe del CSV non possono superare ${m[1]} caratteri (riga ${m[2]} del file)`],
  [/^CSV cannot be read(?:: .*?\bline (\d+))?/, (m) => `il CSV non è leggibile${m[1] ? ` (errore alla riga ${m[1]} del file)` : ''}`],
  [/^(\w+) must be encoded in UTF-8: invalid byte (0x[0-9A-F]{2}) on line (\d+) \(byte (\d+)\)$/,
    (m) => `il file ${m[1]} deve essere codificato in UTF-8: byte non valido ${m[2]} alla riga ${m[3]} (byte ${m[4]})`],
  [/^(\w+) must be encoded in UTF-8$/, (m) => `il file ${m[1]} deve essere codificato in UTF-8`],
  [/^(\w+) charset "(.*)" is not supported; use UTF-8$/, (m) => `la codifica "${m[2]}" del file ${m[1]} non è supportata: usare UTF-8`],
  [/^body must be valid JSON \((.*)\)$/, (m) => `il file non è un JSON valido (${jsonWhere(m[1]!)})`],
  [/^body must not nest objects or arrays more than (\d+) levels deep$/, (m) => `il JSON annida oggetti o elenchi per più di ${m[1]} livelli`],
  [/^ordini must be an array of orders$/, () => "il campo ordini deve essere un elenco di ordini"],
  [/^body must hold /, () => "il file deve contenere un ordine, un elenco di ordini oppure un oggetto con il campo ordini"],
  [/^element (\d+) of the array must be an order object$/, (m) => `l'elemento ${Number(m[1]) + 1} dell'elenco non è un ordine`],
  [/^ordini\[(\d+)\] must be an order object$/, (m) => `l'elemento ${Number(m[1]) + 1} di ordini non è un ordine`],
  [/^XML documents with a DOCTYPE are not accepted$/, () => 'i documenti XML con una dichiarazione DOCTYPE non sono accettati'],
  [/^XML documents with ENTITY declarations are not accepted$/, () => 'i documenti XML con dichiarazioni ENTITY non sono accettati'],
  [/^body must be well-formed XML \(line (\d+)(?:, column (\d+))?: (.*)\)$/,
    (m) => `il file non è un XML ben formato: errore alla riga ${m[1]}${m[2] ? `, colonna ${m[2]}` : ''}`],
  [/^body must be well-formed XML/, () => 'il file non è un XML ben formato'],
  [/^XML must not nest elements more than (\d+) levels deep$/, (m) => `l'XML annida elementi per più di ${m[1]} livelli`],
  [/^XML element name "(.*)" is not allowed$/, (m) => `il nome di elemento XML "${m[1]}" non è ammesso`],
  [/^XML must have exactly one root element$/, () => "l'XML deve avere un solo elemento radice"],
  [/^XML root element must be <ordine>, <ordini> or <InviaOrdine>, or a UBL <Order>, <OrderChange> or <OrderCancellation> in its namespace, not <(.*)>$/,
    (m) => `l'elemento radice dell'XML deve essere <ordine>, <ordini> o <InviaOrdine>, oppure un documento UBL <Order>, <OrderChange> o <OrderCancellation> nel suo namespace, non <${m[1]}>`],
  [/^SOAP envelope must contain a Body$/, () => "la busta SOAP deve contenere un elemento Body"],
  // Excel workbooks (src/intake/formats/xlsx/).
  [/^the file is a damaged ZIP archive/, () => 'il file è un archivio ZIP danneggiato (lo è anche una cartella di lavoro .xlsx) e non può essere letto'],
  [/^the file is an OpenDocument spreadsheet/, () => 'il file è un foglio di calcolo OpenDocument (.ods): lo salvi come cartella di lavoro Excel (.xlsx)'],
  [/^the file is a Word document/, () => 'il file è un documento Word (.docx), non una cartella di lavoro Excel'],
  [/^the file is a ZIP archive, not an Excel workbook/, () => "il file è un archivio ZIP, non una cartella di lavoro Excel (.xlsx): invii direttamente i file degli ordini"],
  [/^the file is an Office document that is not an Excel workbook/, () => 'il file è un documento Office che non è una cartella di lavoro Excel (.xlsx)'],
  [/^the file is declared as an Excel workbook \(\.xlsx\) but is not one$/, () => 'il file è dichiarato come cartella di lavoro Excel (.xlsx) ma non lo è'],
  [/^the Excel workbook is protected by a password/, () => 'la cartella di lavoro Excel è protetta da password: la salvi senza password'],
  [/^the Excel workbook links other workbooks/, () => 'la cartella di lavoro Excel è collegata ad altre cartelle di lavoro (collegamenti esterni): vi copi i valori e rimuova i collegamenti'],
  [/^the Excel workbook has no sheet$/, () => 'la cartella di lavoro Excel non ha nessun foglio'],
  [/^the Excel workbook is refused: it holds more than (\d+) bytes once decompressed$/, (m) => `la cartella di lavoro Excel è rifiutata: decompressa supera ${m[1]} byte`],
  [/^the Excel workbook is refused: it holds a part \((.+)\) that decompresses more than (\d+) times its size$/,
    (m) => `la cartella di lavoro Excel è rifiutata: la parte ${m[1]} decompressa supera di oltre ${m[2]} volte la sua dimensione`],
  [/^the Excel workbook is refused: its texts are longer than (\d+) characters in all$/, (m) => `la cartella di lavoro Excel è rifiutata: i suoi testi superano in tutto ${m[1]} caratteri`],
  [/^the Excel workbook cannot be read: (\S+) has a DOCTYPE declaration/, (m) => `la cartella di lavoro Excel non è accettata: la parte ${m[1]} contiene una dichiarazione DOCTYPE`],
  [/^the Excel workbook cannot be read: (\S+) has an ENTITY declaration/, (m) => `la cartella di lavoro Excel non è accettata: la parte ${m[1]} contiene una dichiarazione ENTITY`],
  [/^the Excel workbook cannot be read: (\S+) uses the entity (&\w+;)/, (m) => `la cartella di lavoro Excel non è accettata: la parte ${m[1]} usa l'entità ${m[2]} (sono ammesse solo quelle predefinite)`],
  [/^the Excel workbook cannot be read: it has more than (\d+) parts$/, (m) => `la cartella di lavoro Excel non può essere letta: ha più di ${m[1]} parti`],
  [/^the Excel workbook (?:cannot be read|is damaged)/, () => 'la cartella di lavoro Excel non può essere letta: è danneggiata o non è un file Excel valido; la salvi di nuovo come .xlsx'],
  [/^the Excel sheet's header \(row (\d+)\) names the column (\S+) more than once$/, (m) => `l'intestazione del foglio (riga ${m[1]}) nomina più volte la colonna ${m[2]}`],
  [/^the Excel sheet (.+) must name the columns (.+) in its header \(row (\d+)\); missing: (.+)$/,
    (m) => `l'intestazione del foglio ${m[1]} (riga ${m[3]}) deve nominare le colonne ${m[2]}; mancano: ${m[4]}`],
  [/^the Excel sheet (.+) has more than (\d+) rows of orders; split it into several files$/, (m) => `il foglio ${m[1]} ha più di ${m[2]} righe d'ordine: divida gli ordini in più file`],
  [/^the Excel sheet (.+) has no header row naming the columns \((.+)\) in its first (\d+) rows$/,
    (m) => `il foglio ${m[1]} non ha, nelle prime ${m[3]} righe, una riga d'intestazione che nomini le colonne (${m[2]}): la aggiunga, o usi il modello Excel del portale`],
];

/** binaryKind's and declaredForeign's names (formats/detect.ts) in words. */
function kindWords(kind: string): string {
  const known: Record<string, string> = {
    'a PDF document': 'un documento PDF', 'a ZIP archive (an .xlsx or .docx file is one)': 'un archivio ZIP (lo è anche un file .xlsx o .docx)',
    'an old Excel workbook (.xls), a password-protected workbook or another old-format Office document (.doc); save a workbook as .xlsx without a password':
      'una cartella di lavoro Excel di vecchio formato (.xls), una cartella protetta da password o un altro documento Office di vecchio formato (.doc); salvi il file come .xlsx senza password', 'a PNG image': "un'immagine PNG",
    'a JPEG image': "un'immagine JPEG", 'a GIF image': "un'immagine GIF", 'a gzip archive': 'un archivio gzip',
  };
  return known[kind] ?? kind;
}

/** declaredForeign's "media type x" and "a .x file". */
function foreignWords(foreign: string): string {
  const media = /^media type (.*)$/.exec(foreign);
  if (media) return `il tipo ${media[1]}`;
  const ext = /^a (\.\S+) file$/.exec(foreign);
  return ext ? `un file ${ext[1]}` : foreign;
}

/** The parsers' own words (V8, fast-xml-parser, csv-parse) are English: people get the place they name. */
function jsonWhere(reason: string): string {
  const m = /, line (\d+) column (\d+)$/.exec(reason);
  return m ? `errore alla riga ${m[1]}, colonna ${m[2]}` : 'contenuto non leggibile';
}

/** What a person reads for a file error whose message this table does not know. */
const FILE_FALLBACK: Partial<Record<ErrorCode, string>> = {
  NOT_PARSEABLE: 'il file non è leggibile',
  NO_ORDERS: 'il file non contiene nessun ordine',
  UNSUPPORTED_MEDIA_TYPE: "il formato del file non è accettato: inviare l'ordine in formato JSON, XML o CSV",
  PAYLOAD_TOO_LARGE: 'il file è troppo grande',
  FORBIDDEN_SITE: 'il sito di produzione indicato non è consentito',
  SITE_REQUIRED: 'il sito di produzione non è indicato',
  INTERNAL: "errore interno del servizio: l'invio sarà rielaborato, oppure si rivolga al fornitore del servizio",
  UNAVAILABLE: 'il servizio non può accettare ordini in questo momento',
};

/** Messages already written for people (Italian): shown as they are. */
const ITALIAN_CODES: ReadonlySet<ErrorCode> = new Set(['FILE_TOO_MANY_ORDERS', 'CUSTOMER_INACTIVE', 'INTERNAL']);

export function fileErrorItalian(code: ErrorCode, messages: readonly string[]): string[] {
  if (ITALIAN_CODES.has(code)) return [...messages];
  return messages.map((msg) => {
    for (const [re, say] of FILE_MESSAGES) {
      const m = re.exec(msg);
      if (m) return capitalise(say(m));
    }
    return capitalise(FILE_FALLBACK[code] ?? 'il file non è stato elaborato');
  });
}
