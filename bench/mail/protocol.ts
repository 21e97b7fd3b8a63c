/** Messages between the mail benchmarks and their children: the SMTP client (smtp-client.ts) and the reply sink (sink.ts). */
import type { LoopSpec } from '../lib/loop.ts';

export interface MailLoad extends LoopSpec {
  /** The service's SMTP port on 127.0.0.1. */
  port: number;
  /** The customer's order mailbox (the service accepts mail only for those). */
  to: string;
  /** The customer's address: the reply goes there (to the sink, the service's relay). */
  from: string;
  /** Message n carries the order `<refPrefix>-<n>` and the Message-ID `<<refPrefix>-<n>@bench.localhost>`. */
  refPrefix: string;
  orderLines: number;
  /** Pooled SMTP connections of the client; the closed loop keeps `concurrency` messages in flight over them. */
  connections: number;
}

/** One message the service accepted (250 after DATA). Times are epoch ms (see bench/lib/loop.ts epochMs). */
export interface AcceptedMail {
  messageId: string;
  /** When the submission started (closed loop) or was scheduled to (open loop). */
  startedAt: number;
  /** When the client read the 250. */
  acceptedAt: number;
  /** Started inside the measured window. */
  inWindow: boolean;
}

export interface MailLoadResult {
  accepted: AcceptedMail[];
  /** Epoch ms of the measured window. */
  windowFrom: number;
  windowTo: number;
  windowSec: number;
  /** Sends that failed: refused (4xx/5xx) or a connection error. */
  errors: number;
  firstError?: string;
  missed: number;
  /** Bytes of the first message, a sample of the size sent. */
  sampleBytes: number;
  cpuUserMs: number;
  cpuSystemMs: number;
}

/** A reply the sink received. */
export interface ReplySeen {
  /** Its In-Reply-To header: the Message-ID of the order mail it answers. */
  inReplyTo?: string;
  /** Epoch ms when the sink had the whole message (end of DATA). */
  receivedAt: number;
  bytes: number;
}

export type SinkRequest = { cmd: 'count' } | { cmd: 'collect' };
export interface SinkCount { count: number }
export interface SinkCollected { replies: ReplySeen[]; connections: number }

/** The client's first message when it is loaded, so a benchmark can start several clients together. */
export interface ClientReady { ready: true }
