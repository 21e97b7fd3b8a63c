/** Messages between the file benchmarks and their upload client child (bench/files/upload-client.ts). */

export interface UploadTarget {
  protocol: 'sftp' | 'ftp';
  port: number;
  username: string;
  password?: string;
  /** OpenSSH private key (PEM text), for the reference sshd. */
  privateKey?: string;
}

export interface BigUpload {
  kind: 'big';
  target: UploadTarget;
  localFile: string;
  remotePath: string;
}

export interface BigUploadResult {
  bytes: number;
  /** From the first byte sent to the server's answer to the close (SFTP) or its 226 (FTP). */
  seconds: number;
  /** SFTP: from the first byte sent to the last WRITE acknowledged (the data is on the server, not yet committed). */
  writeSeconds?: number;
  /** SSH algorithms the two sides agreed on (cipher and MAC decide the cost per byte). */
  negotiated?: unknown;
}

export interface SmallUploads {
  kind: 'small';
  target: UploadTarget;
  remoteDir: string;
  /** File names are `<prefix>-s<session>-<n>.csv`, each a 3-line CSV order with that reference. */
  prefix: string;
  orderLines: number;
  sessions: number;
  warmupSec: number;
  durationSec: number;
  /** Files per session at most (the service closes a session past 1,000 uploads). */
  maxFilesPerSession: number;
}

export interface SmallFile {
  name: string;
  /** Epoch ms when the server acknowledged the upload (SFTP close status, FTP 226). */
  closedAt: number;
  /** Milliseconds from open to that acknowledgement. */
  uploadMs: number;
  inWindow: boolean;
}

export interface SmallUploadsResult {
  files: SmallFile[];
  windowSec: number;
  errors: number;
  firstError?: string;
}
