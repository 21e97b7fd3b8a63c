/** Order file decoders: the format registry, format detection and bytes → order candidates. */
export type { DecodeInput, Format } from './input.ts';
export type { ExampleOrder, OrderFormat } from './format.ts';
export { decodeOrders } from './decode.ts';
export { detectFormat } from './detect.ts';
export { FORMATS, ORDER_MEDIA_TYPES, baseMediaType, declaredTypesList, formatList, formatNamed, formatOfFileName, formatOfMediaType, usualExtension } from './registry.ts';
export { decodeCsv, MAX_COLUMNS, MAX_RECORD_CHARS, CsvOrderReader, CSV_CHUNK_BYTES, type CsvInput, type CsvReadOptions } from './csv/index.ts';
export { bufferBytes, fileBytes, type Bytes } from './bytes.ts';
export { arraySource, openOrders, openOrdersYielding, YIELD_EVERY_BYTES, type OrderSource } from './orders.ts';
export { decodeJson, MAX_JSON_DEPTH } from './json/index.ts';
export { decodeXml, MAX_XML_DEPTH, parseXml, readXmlText } from './xml/index.ts';
export { fileRowsOf } from './file-rows.ts';
export { cellRef, cellWords, sheetPlacesOf, orderWorkbook, previewSheet, readXlsx, XLSX_MEDIA_TYPE, type SheetPreview, type TemplateUnit } from './xlsx/index.ts';
