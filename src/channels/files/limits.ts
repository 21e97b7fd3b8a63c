/**
 * Limits of the file channels, each with the reason it exists. The file size limit is config.maxFileBytes.
 */
export const LIMITS = {
  /**
   * Sessions (FTP and SFTP together) one customer may hold at once. A management system needs one or two; FileZilla
   * opens up to 10 for parallel transfers. More is a runaway script, and each session costs memory and descriptors.
   */
  sessionsPerCustomer: 10,
  /**
   * Uploads in one session. A nightly export sends tens of files; a session that sends thousands is a loop gone
   * wrong, and closing it turns an endless stream of orders into an error someone notices.
   */
  filesPerSession: 1000,
  /** Files open at once in one session: each may hold a whole stored file in memory (reads) or a descriptor. */
  openFilesPerSession: 8,
  /** Connections to one server, logged in or not: bounds descriptors and password-hashing CPU under a flood. */
  connectionsPerServer: 256,
  /**
   * Of connectionsPerServer, the slots that connections not yet logged in may never take: customers who have logged
   * in keep working while strangers hold every other slot (see src/channels/connection-guard.ts).
   */
  reservedForLoggedIn: 64,
  /**
   * Connections not yet logged in from one address. FileZilla opens up to 10 at once from behind one NAT; before
   * this bound, 256 idle sockets from one address shut every customer out.
   */
  waitingPerAddress: 16,
  /** Added to every failed login so that guessing runs at one try per second per connection, not network speed. */
  failedLoginDelayMs: 1000,
  /** Password attempts on one SSH connection before it is closed (OpenSSH itself offers 3). */
  loginAttemptsPerConnection: 6,
  /** A connection that has not logged in by then is closed: it holds a slot and does nothing useful. */
  loginTimeoutMs: 30_000,
  /**
   * A session with no command and no transfer for this long is closed, releasing its slot in sessionsPerCustomer.
   * Ten minutes outlasts any client's own keep-alive interval.
   */
  idleTimeoutMs: 10 * 60_000,
  /**
   * Entries listed per folder: the most recent ones. Listings are built from the database on every LIST, and
   * clients load a whole listing before showing it; years of history would make every listing slow for the
   * customer and the database. Older files stay stored and visible through the REST status endpoint.
   */
  listedPerFolder: 1000,
  /** Entries sent per SFTP READDIR reply: keeps each reply well under the 256 KiB message limit of OpenSSH clients. */
  readdirBatch: 100,
  /** Largest SFTP READ answered at once: clients ask for 32-64 KiB; a bigger answer could exceed their message limit. */
  maxReadChunk: 64 * 1024,
  /** Temporary (.part, .filepart …) files a customer may keep in the spool: each may be as large as maxFileBytes. */
  tempFilesPerCustomer: 20,
  /**
   * How long a finished upload waits for room in that budget before it is refused with a temporary error. The client
   * is waiting for its 226 / CLOSE status meanwhile; clients wait minutes for that, and judging a 100 MB file takes
   * well under one.
   */
  budgetWaitMs: 5 * 60_000,
  /**
   * A temporary file untouched for this long was abandoned (its upload will not resume): deleted at start, and when
   * the customer's temporary files are listed (a listing, or a new one counted against tempFilesPerCustomer).
   */
  tempMaxAgeMs: 7 * 24 * 3600_000,
  /**
   * The pieces an upload wrote into the store while it arrived (upload-stager.ts) and that no submission adopted are
   * deleted once the upload wrote none for this long: its connection or its instance died. A live upload writes a
   * piece every 4 MiB, and a session idle for idleTimeoutMs is closed; only an upload slower than ~1 KiB/s for an
   * hour could lose its pieces this way, and its CLOSE is then refused (never stored with a hole).
   */
  stagedUploadGraceMs: 3600_000,
  /** How often each instance looks for such pieces (and once at start). */
  stagedSweepEveryMs: 10 * 60_000,
} as const;

/** Connection slots of each file server (FTP, SFTP), guarded by src/channels/connection-guard.ts. */
export const FILES_GUARD_LIMITS = {
  total: LIMITS.connectionsPerServer,
  reservedForTrusted: LIMITS.reservedForLoggedIn,
  perAddress: LIMITS.waitingPerAddress,
  // A little after the protocols' own login deadline, which closes with a clearer message: this is the backstop.
  waitingTimeoutMs: LIMITS.loginTimeoutMs + 5_000,
} as const;

/** Why a connection was refused or closed by the guard, as the client is told (FTP prefixes 421). */
export const GUARD_REFUSALS = {
  'per-address': 'Troppe connessioni dal Suo indirizzo, riprovare più tardi',
  full: 'Troppe connessioni, riprovare più tardi',
  timeout: 'Tempo scaduto per il login',
  evicted: 'Connessione chiusa per fare posto ad altre: riprovare',
} as const;

/** Counts open sessions per customer across FTP and SFTP. */
export interface SessionLimiter {
  /** A release function, or undefined when the customer already holds the maximum. */
  acquire(customerId: string): (() => void) | undefined;
}

export function createSessionLimiter(max: number = LIMITS.sessionsPerCustomer): SessionLimiter {
  const open = new Map<string, number>();
  return {
    acquire(customerId) {
      const n = open.get(customerId) ?? 0;
      if (n >= max) return undefined;
      open.set(customerId, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(customerId) ?? 1) - 1;
        if (left <= 0) open.delete(customerId);
        else open.set(customerId, left);
      };
    },
  };
}

/** Waits `ms` (the failed-login delay); a real timer, not a poll. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
