/** Test certificates made by openssl (self-signed, for 127.0.0.1 and localhost), as an operator would make one. */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCert {
  certFile: string;
  keyFile: string;
  /** The PEM text, to give clients as their only trusted CA. */
  pem: string;
  /** SHA-256 fingerprint as Node prints it (AA:BB:…), to tell two certificates apart from the client side. */
  fingerprint256: string;
}

export function makeCert(dir: string, name: string, cn = 'localhost'): TestCert {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', `/CN=${cn}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  const pem = readFileSync(certFile, 'utf8');
  return { certFile, keyFile, pem, fingerprint256: new X509Certificate(pem).fingerprint256 };
}
