/**
 * What the web channel's routes are given: the service's parts (WebDeps) and, added by registerWeb, the sessions and
 * the login throttle (WebContext). In a file of its own so that the console and portal files, which index.ts
 * registers, do not import index.ts back.
 */
import type { Intake } from '../../intake/intake.ts';
import type { Logger } from '../../log.ts';
import type { WebChannelStore } from '../../domain/store/ports.ts';
import type { MemoryBudget } from '../memory-budget.ts';
import type { PortalSpool } from './portal/upload-spool.ts';
import type { Sessions } from './sessions.ts';
import type { LoginThrottle } from './throttle.ts';
import type { PeppolId } from '../../domain/store/store.ts';

export interface WebDeps {
  store: WebChannelStore;
  intake: Intake;
  log: Logger;
  timeZone: string;
  /** Domain of the customers' order mailboxes (customers added in the console get one). */
  mailDomain: string;
  /** Largest file one upload may carry (INTAKE_MAX_FILE_BYTES, as for FTP/SFTP and e-mail). */
  maxFileBytes: number;
  /** Told after an order event was committed outside the intake (an operator's decision): wakes the feed's long polls. */
  onEvent?: () => void;
  /** Our Peppol identifier (INTAKE_PEPPOL_ID): the seller of the Order Responses the console shows. */
  peppolId?: PeppolId;
  /** Memory shared by the uploads being stored and judged, with the file channels (INTAKE_UPLOAD_MEMORY_BYTES). */
  budget: MemoryBudget;
  /** The data directory: portal uploads are written to its spool/portal/ while they arrive. */
  dataDir: string;
}

/** What the console and portal routes share. */
export interface WebContext extends WebDeps {
  sessions: Sessions;
  throttle: LoginThrottle;
  portalSpool: PortalSpool;
}
