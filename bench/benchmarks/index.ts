/** Every benchmark, in the order `npm run bench` runs them. */
import type { Benchmark } from '../lib/types.ts';
import { restBenchmark } from './rest.ts';
import { decodersBenchmark } from './decoders.ts';
import { fileBenchmark } from './files.ts';
import { channelWired, notYet } from './not-wired.ts';

function pending(name: string, description: string, module: string, starter: string, channel: string): Benchmark {
  return {
    name,
    description,
    byDefault: true,
    async run() {
      if (!channelWired(module, starter)) return notYet(`channel ${channel} not wired`, `${module} / ${starter} in src/main.ts`);
      return notYet(`the ${channel} benchmark is not written`, `${module} exists; see bench/README.md`);
    },
  };
}

export const BENCHMARKS: readonly Benchmark[] = [
  restBenchmark('sqlite'),
  restBenchmark('postgres'),
  decodersBenchmark,
  fileBenchmark('sftp'),
  fileBenchmark('ftp'),
  pending('mail', 'SMTP submission → reply sent to a local sink: messages/s and latency', 'src/channels/mail/index.ts', 'startMailChannels', 'mail'),
  pending('mixed', 'every channel at once for a minute: orders/s and p99 per channel, nothing lost', 'src/channels/mail/index.ts', 'startMailChannels', 'mail'),
];
