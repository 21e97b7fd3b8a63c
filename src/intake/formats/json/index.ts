/** JSON orders: one order object, an array of them, or `{"ordini": [...]}`. */
import { WHOLE_FILE_FACTOR, type OrderFormat } from '../format.ts';
import { decodeJson } from './decode.ts';

export const jsonFormat: OrderFormat<'json'> = {
  name: 'json',
  label: 'JSON',
  mediaTypes: ['application/json', 'text/json'],
  looseMediaTypes: [],
  suffix: '+json',
  extensions: ['json'],
  sniff: (head) => head.startsWith('{') || head.startsWith('['),
  decode: decodeJson,
  memoryCost: (size) => size * WHOLE_FILE_FACTOR,
  example: (order) => JSON.stringify(order),
};

export { decodeJson, MAX_JSON_DEPTH } from './decode.ts';
