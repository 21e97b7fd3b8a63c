/** Every benchmark, in the order `npm run bench` runs them. */
import type { Benchmark } from '../lib/types.ts';
import { restBenchmark } from './rest.ts';
import { restPgMultiBenchmark } from './rest-pg-multi.ts';
import { decodersBenchmark } from './decoders.ts';
import { fileBenchmark } from './files.ts';
import { mailBenchmark } from './mail.ts';
import { mixedBenchmark } from './mixed.ts';
import { recoveryBenchmark, recoveryPgBenchmark } from './recovery.ts';
import { handoffBenchmark } from './handoff.ts';
import { consoleBenchmark } from './console.ts';
import { peppolBenchmark } from './peppol.ts';

export const BENCHMARKS: readonly Benchmark[] = [
  restBenchmark('sqlite'),
  restBenchmark('postgres'),
  restPgMultiBenchmark,
  decodersBenchmark,
  fileBenchmark('sftp'),
  fileBenchmark('ftp'),
  mailBenchmark,
  mixedBenchmark,
  recoveryBenchmark,
  recoveryPgBenchmark,
  handoffBenchmark,
  consoleBenchmark,
  peppolBenchmark,
];
