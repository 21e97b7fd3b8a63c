/** Messages between the mixed benchmark and its SOAP client child (soap-client.ts). */
import type { LatencySummary } from '../lib/stats.ts';
import type { LoopSpec } from '../lib/loop.ts';

export interface SoapLoad extends LoopSpec {
  /** http://127.0.0.1:port */
  origin: string;
  apiKey: string;
  /** Call n sends the order `<refPrefix>-<n>`. */
  refPrefix: string;
  orderLines: number;
}

export interface SoapLoadResult {
  /** Calls answered 200 with esito ok, warm-up included: the orders the service acknowledged. */
  acknowledged: number;
  /** Of those, the ones that started and ended inside the window. */
  okInWindow: number;
  windowSec: number;
  /** Start → answer of the calls counted in okInWindow (ms). */
  latency: LatencySummary;
  /** Calls answered otherwise (HTTP status, or a fault/esito errore as "200-errore"), and calls without an answer. */
  statuses: Record<string, number>;
  errors: number;
  firstError?: string;
  sent: number;
  cpuUserMs: number;
  cpuSystemMs: number;
}
