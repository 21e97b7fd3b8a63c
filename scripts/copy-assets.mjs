// Copies what tsc does not: the plain SQL migrations, read at run time next to the compiled store modules.
// Runs after `tsc -p tsconfig.build.json` in `npm run build`.
import { cpSync, existsSync, rmSync } from 'node:fs';

const from = new URL('../src/store/migrations/', import.meta.url);
const to = new URL('../dist/store/migrations/', import.meta.url);
if (!existsSync(from)) {
  console.error(`copy-assets: ${from.pathname} is missing`);
  process.exit(1);
}
// A migration removed from src must not linger in dist and be applied from there.
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true, filter: (src) => !src.endsWith('~') });
console.log(`copy-assets: migrations copied to ${to.pathname}`);

// The web channel's templates and static files (CSS, the portal's script), read at run time next to its modules.
for (const dir of ['views', 'static']) {
  const src = new URL(`../src/channels/web/${dir}/`, import.meta.url);
  const dst = new URL(`../dist/channels/web/${dir}/`, import.meta.url);
  rmSync(dst, { recursive: true, force: true });
  cpSync(src, dst, { recursive: true, filter: (p) => !p.endsWith('~') });
}
console.log('copy-assets: web views and static files copied');
