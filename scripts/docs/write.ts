// `npm run docs`: writes the generated reference pages (see reference.ts).
import { writeFileSync } from 'node:fs';
import { CLI_PAGE, SETTINGS_PAGE, cliPage, settingsPage } from './reference.ts';

writeFileSync(SETTINGS_PAGE, settingsPage());
writeFileSync(CLI_PAGE, cliPage());
console.log(`wrote ${SETTINGS_PAGE} and ${CLI_PAGE}`);
