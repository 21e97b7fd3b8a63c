/**
 * Readiness (GET /readyz): whether this instance should be sent work now. The composition root marks each channel
 * as it starts listening and as it closes, the start as finished, and the stop as begun; the probe adds the store's
 * answer. Liveness stays /healthz: a process that is starting or stopping is alive, just not to be sent customers.
 */

export type ReadinessPhase = 'starting' | 'running' | 'stopping';

export interface Readiness {
  /** A channel accepts connections from now on (its listen has returned). */
  listening(channel: string): void;
  /** A channel stops accepting connections (its close begins). */
  closed(channel: string): void;
  /** Every enabled channel has been started. */
  started(): void;
  /** A graceful stop begins: from now on the instance is not ready, before any port closes. */
  stopping(): void;
  phase(): ReadinessPhase;
  /** Channels started so far, true while they listen. */
  channels(): Record<string, boolean>;
}

export function createReadiness(): Readiness {
  let phase: ReadinessPhase = 'starting';
  const channels = new Map<string, boolean>();
  return {
    listening: (channel) => void channels.set(channel, true),
    closed: (channel) => void channels.set(channel, false),
    started: () => {
      if (phase === 'starting') phase = 'running';
    },
    stopping: () => {
      phase = 'stopping';
    },
    phase: () => phase,
    channels: () => Object.fromEntries(channels),
  };
}

export interface ReadinessReport {
  status: 'ready' | 'starting' | 'stopping' | 'unavailable';
  store: boolean;
  channels: Record<string, boolean>;
}

/** The probe's answer from the phase, the channels and whether the store answered. */
export function readinessReport(readiness: Readiness, storeAnswers: boolean): ReadinessReport {
  const channels = readiness.channels();
  const phase = readiness.phase();
  const status = phase !== 'running' ? phase
    : storeAnswers && Object.values(channels).every(Boolean) ? 'ready' : 'unavailable';
  return { status, store: storeAnswers, channels };
}
