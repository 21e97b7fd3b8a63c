/** XML orders: root `<ordine>` (several under `<ordini>`), namespaces and prefixes ignored, no DOCTYPE. */
import { WHOLE_FILE_FACTOR, type OrderFormat } from '../format.ts';
import { decodeXml } from './decode.ts';

const element = (name: string, value: string | number) => `<${name}>${String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</${name}>`;

export const xmlFormat: OrderFormat<'xml'> = {
  name: 'xml',
  label: 'XML',
  mediaTypes: ['application/xml', 'text/xml'],
  looseMediaTypes: [],
  suffix: '+xml',
  extensions: ['xml'],
  sniff: (head) => head.startsWith('<'),
  decode: decodeXml,
  memoryCost: (size) => size * WHOLE_FILE_FACTOR,
  example: (o) => [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ordine>${element('codice_cliente', o.codice_cliente)}${element('riferimento_ordine', o.riferimento_ordine)}${element('data_ordine', o.data_ordine)}`,
    `<righe>${o.righe.map((r) => `<riga>${element('codice_articolo', r.codice_articolo)}${element('quantita', r.quantita)}${element('unita_misura', r.unita_misura)}</riga>`).join('')}</righe></ordine>`,
  ].join('\n'),
};

export { decodeXml, MAX_XML_DEPTH, parseXml, predefinedEntitiesOnly, readXmlText } from './decode.ts';
export { SAFE_XML_OPTIONS } from './entities.ts';
