/**
 * What `serve` prints for a person when it seeded the demo customer: the secrets (shown only this once) and a
 * curl command that registers an order. Printed by the CLI, not the service, so embedding the service (tests,
 * benchmarks) prints nothing.
 */
import type { ProvisionedCustomer } from '../customers/provision.ts';
import { demoOrderJson } from './demo.ts';

export function demoBanner(demo: ProvisionedCustomer, ports: Readonly<Record<string, number>>, baseUrl?: string): string {
  const body = JSON.stringify(demoOrderJson());
  return [
    '',
    'Demo customer created (shown only once):',
    `  codice_cliente: ${demo.customer.code}`,
    `  API key:        ${demo.apiKey}`,
    `  mailbox:        ${demo.mailbox}`,
    `  FTP/SFTP user:  ${demo.ftpUser}  password: ${demo.ftpPassword}`,
    ...(ports.sftp ? [`  SFTP:           sftp -P ${ports.sftp} ${demo.ftpUser}@localhost   (upload into /ordini/)`] : []),
    ...(ports.ftp ? [`  FTP:            ftp://localhost:${ports.ftp}/ordini/`] : []),
    ...(baseUrl ? [
      '',
      'Register a demo order:',
      `  curl -sS -X POST ${baseUrl}/api/v1/ordini -H 'Content-Type: application/json' -H 'X-API-Key: ${demo.apiKey}' -d '${body}'`,
      `API documentation: ${baseUrl}/api/docs`,
    ] : []),
    '',
  ].join('\n') + '\n';
}
