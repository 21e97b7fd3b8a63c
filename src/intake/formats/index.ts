/** Order file decoders (JSON, XML, CSV): format detection and bytes → order candidates. */
export type { DecodeInput, Format } from './input.ts';
export { decodeOrders } from './decode.ts';
export { detectFormat } from './detect.ts';
export { decodeCsv, MAX_COLUMNS, MAX_RECORD_CHARS } from './csv.ts';
export { decodeJson, MAX_JSON_DEPTH } from './json.ts';
export { decodeXml, MAX_XML_DEPTH, parseXml, readXmlText } from './xml.ts';
