/** Order file decoders (JSON, XML, CSV): format detection and bytes → order candidates. */
export type { DecodeInput, Format } from './input.ts';
export { decodeOrders } from './decode.ts';
export { detectFormat } from './detect.ts';
export { decodeCsv, MAX_COLUMNS, MAX_RECORD_CHARS } from './csv.ts';
export { CsvOrderReader, CSV_CHUNK_BYTES, type CsvInput, type CsvReadOptions } from './csv-stream.ts';
export { bufferBytes, fileBytes, type Bytes } from './bytes.ts';
export { arraySource, openOrders, openOrdersYielding, YIELD_EVERY_BYTES, type OrderSource } from './orders.ts';
export { decodeJson, MAX_JSON_DEPTH } from './json.ts';
export { decodeXml, MAX_XML_DEPTH, parseXml, readXmlText } from './xml.ts';
export { fileRowsOf } from './file-rows.ts';
