/**
 * The file channels (FTP and SFTP): one virtual tree, one spool, one session limit, two protocol adapters.
 * main.ts calls startFileChannels; each server starts unless its port is 'off'.
 */
import type { Authenticator } from '../../auth/authenticator.ts';
import type { Config } from '../../config.ts';
import type { Intake } from '../../intake/intake.ts';
import type { Logger } from '../../log.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { FilesChannelStore } from '../../domain/store/ports.ts';
import { startFtpServer } from './ftp.ts';
import { loadOrCreateHostKey } from './host-key.ts';
import { createSessionLimiter } from './limits.ts';
import { startSftpServer, type RunningServer } from './sftp.ts';
import { Spool } from './spool.ts';
import { startStagedSweep } from './staged-sweep.ts';
import { createMemoryBudget, type MemoryBudget } from '../memory-budget.ts';
import { SizeCache } from './tree-model.ts';

export interface FileChannelsDeps {
  config: Config;
  intake: Intake;
  store: FilesChannelStore;
  auth: Authenticator;
  log: Logger;
  /** Test hook: the delay after a failed login (default 1 s). */
  failedLoginDelayMs?: number;
  /** Open connections per channel (GET /metrics). */
  metrics?: Metrics;
  /** The upload memory budget, shared with the portal (default: one of INTAKE_UPLOAD_MEMORY_BYTES of their own). */
  budget?: MemoryBudget;
}

export interface FileChannels {
  ports: { sftp?: number; ftp?: number };
  close(): Promise<void>;
  /** Re-read the TLS certificate of the servers that speak TLS (FTP's AUTH TLS); how many did. Throws if unusable. */
  reloadTls(): Promise<number>;
}

export async function startFileChannels(deps: FileChannelsDeps): Promise<FileChannels> {
  const { config, log } = deps;
  const ports: FileChannels['ports'] = {};
  const servers: RunningServer[] = [];
  if (config.sftpPort === 'off' && config.ftpPort === 'off') return { ports, async close() {}, reloadTls: async () => 0 };

  const spool = new Spool(config.dataDir, log.child({ channel: 'files' }));
  await spool.init();
  const shared = {
    store: deps.store, intake: deps.intake, log, auth: deps.auth, timeZone: config.timeZone, maxFileBytes: config.maxFileBytes,
    spool, sizes: new SizeCache(), sessions: createSessionLimiter(), failedLoginDelayMs: deps.failedLoginDelayMs,
    metrics: deps.metrics,
    budget: deps.budget ?? createMemoryBudget(config.uploadMemoryBytes),
    ...(config.peppolId ? { peppolId: config.peppolId } : {}),
  };
  const sweep = startStagedSweep(deps.store, log.child({ channel: 'files' }));
  const close = async () => {
    sweep.stop();
    for (const s of servers.reverse()) await s.close();
  };
  try {
    if (config.sftpPort !== 'off') {
      const hostKey = await loadOrCreateHostKey(config.dataDir, log);
      const s = await startSftpServer({ ...shared, hostKey }, { host: config.host, port: config.sftpPort });
      servers.push(s);
      ports.sftp = s.port;
    }
    if (config.ftpPort !== 'off') {
      const s = await startFtpServer(shared, {
        host: config.host, port: config.ftpPort, pasvUrl: config.ftpPublicHost,
        pasvMin: config.ftpPasvRange.min, pasvMax: config.ftpPasvRange.max,
        tls: config.tlsCertFile && config.tlsKeyFile ? { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile } : undefined,
        requireTls: config.ftpRequireTls,
      });
      servers.push(s);
      ports.ftp = s.port;
    }
  } catch (err) {
    await close();
    throw err;
  }
  const reloadTls = async () => {
    const tls = servers.filter((x) => x.reloadTls);
    for (const x of tls) await x.reloadTls!();
    return tls.length;
  };
  return { ports, close, reloadTls };
}
