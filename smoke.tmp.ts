import { readXlsx } from './src/intake/formats/xlsx/index.ts';
import { readFileSync } from 'node:fs';
for (const f of process.argv.slice(2)) {
  try { const r = await readXlsx(readFileSync(f)); console.log(f, JSON.stringify(r.candidates)); }
  catch (e) { console.log(f, (e as Error).message); }
}
