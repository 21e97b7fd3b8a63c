// `npm run docs`: writes the generated reference pages (see reference.ts).
import { writeFileSync } from 'node:fs';
import { CLI_PAGE, ERRORS_PAGE, JMF_STATUS_PAGE, SETTINGS_PAGE, cliPage, errorsPage, jmfStatusPage, settingsPage } from './reference.ts';

writeFileSync(SETTINGS_PAGE, settingsPage());
writeFileSync(CLI_PAGE, cliPage());
writeFileSync(JMF_STATUS_PAGE, jmfStatusPage());
writeFileSync(ERRORS_PAGE, errorsPage());
console.log(`wrote ${SETTINGS_PAGE}, ${CLI_PAGE}, ${JMF_STATUS_PAGE} and ${ERRORS_PAGE}`);
