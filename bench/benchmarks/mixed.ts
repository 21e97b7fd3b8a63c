/**
 * Mixed: every channel at once against one service (its own process, fresh SQLite database each run), each channel
 * driven by its own client process for the same window: REST (bench/load/loadgen.ts), SOAP (bench/mixed/soap-client.ts),
 * SFTP and FTP small order files (bench/files/upload-client.ts) and SMTP order mails (bench/mail/smtp-client.ts), the
 * replies going to the sink. Orders/s and p99 per channel, from each client's own acknowledgements. Then, with the
 * service stopped, the count: per channel, the orders registered in the database equal the submissions acknowledged,
 * and every accepted mail has exactly one reply.
 *
 * The window is 6 × --duration (a minute with the default 10 s; 18 s with --quick).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { askOnce, ROOT } from '../lib/children.ts';
import { summariseProfiles } from '../profile/summarise.ts';
import { storeCounts } from '../lib/channel-counts.ts';
import { startReadyChild } from '../lib/ready-child.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { latencySummary } from '../lib/stats.ts';
import { tallyReplies } from '../mail/replies.ts';
import { demoMailbox, startSink, waitProcessed, waitReplies } from '../mail/setup.ts';
import { MAIL_FROM, MAIL_ORDER_LINES } from './mail.ts';
import type { LoadResult, LoadSpec } from '../load/protocol.ts';
import type { SmallUploads, SmallUploadsResult, UploadTarget } from '../files/protocol.ts';
import type { MailLoad, MailLoadResult } from '../mail/protocol.ts';
import type { SoapLoad, SoapLoadResult } from '../mixed/protocol.ts';
import type { Benchmark, BenchContext, Metric } from '../lib/types.ts';

/** The window is this many --duration: a minute at the default 10 s, as the issue asks, and shorter with --quick. */
const WINDOW_FACTOR = 6;
/**
 * Load per channel: requests in flight (REST, SOAP, SMTP) or sessions uploading back to back (SFTP, FTP). Modest and
 * fixed, so every channel gets a share of a 2-core machine rather than REST's 32 in flight taking it all; the sum
 * (18) is what a small print shop's customers might have going at a peak. SFTP and FTP log in as the same customer
 * at the same moment; the login lockout makes logins beyond its 5 under way wait for one to end, so 2 + 2 never waits.
 */
const LOAD = { rest: 8, soap: 4, sftp: 2, ftp: 2, smtp: 4 } as const;
const REST_LINES = 3;
const SOAP_LINES = 3;
const FILE_LINES = 3;
/** Below the service's 1,000 uploads per session, which would end the session mid-window. */
const MAX_FILES_PER_SESSION = 950;
/** After the window, how long the service may take to process and answer what it acknowledged. */
const DRAIN_TIMEOUT_MS = 5 * 60_000;
const CLIENT_SLACK_MS = 120_000;

type ChannelName = 'rest' | 'soap' | 'sftp' | 'ftp' | 'email';
const CHANNELS: readonly ChannelName[] = ['rest', 'soap', 'sftp', 'ftp', 'email'];

interface ChannelRun {
  /** Submissions the client saw acknowledged, warm-up included (one order each). */
  acknowledged: number;
  /** Acknowledged inside the window, per second. */
  perSec: number;
  /** Submission start → acknowledgement, inside the window (ms). */
  p50: number;
  p99: number;
  failed: number;
  firstError?: string;
}

function uploadRun(r: SmallUploadsResult): ChannelRun {
  const window = r.files.filter((f) => f.inWindow);
  const lat = latencySummary(Float64Array.from(window.map((f) => f.uploadMs)));
  return { acknowledged: r.files.length, perSec: window.length / r.windowSec, p50: lat.p50, p99: lat.p99, failed: r.errors, firstError: r.firstError };
}

export const mixedBenchmark: Benchmark = {
  name: 'mixed',
  description: 'every channel at once (REST, SOAP, SFTP, FTP, SMTP) for a minute: orders/s and p99 per channel, nothing lost',
  byDefault: true,
  async run(ctx: BenchContext) {
    const windowSec = ctx.durationSec * WINDOW_FACTOR;
    const warmupSec = ctx.warmupSec;
    const samples = new Map<string, number[]>();
    const notes: string[] = [];
    const details: unknown[] = [];
    const profDir = path.join(ctx.tmpDir, 'cpuprofile');

    // Pass 0, with --profile only: the service under `node --cpu-prof` for one --duration window, not in the figures.
    for (let run = ctx.profile ? 0 : 1; run <= ctx.runs; run++) {
      const profiling = run === 0;
      const passSec = profiling ? ctx.durationSec : windowSec;
      const budget = (warmupSec + passSec) * 1000 + CLIENT_SLACK_MS;
      const add = (k: string, v: number) => {
        if (!profiling) samples.set(k, [...(samples.get(k) ?? []), v]);
      };
      const step = (what: string) => ctx.progress(`mixed ${profiling ? 'profile pass' : `run ${run}/${ctx.runs}`}: ${what}`);
      const prefix = `X${randomBytes(4).toString('hex')}`;
      const dataDir = path.join(ctx.tmpDir, `service-${run}`);
      mkdirSync(dataDir, { recursive: true });
      const sink = await startSink();
      let service: RunningService | undefined;
      try {
        const pasv = 42_000 + randomInt(0, 160) * 100;
        service = await startService({
          dataDir, waitForPorts: ['sftp', 'ftp', 'smtp'], cpuProfDir: profiling ? profDir : undefined,
          env: {
            INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: `${pasv}-${pasv + 99}`,
            INTAKE_SMTP_PORT: '0', INTAKE_SMTP_RELAY: sink.url,
          },
        });
        if (!service.ftpUser || !service.ftpPassword) throw new Error('the service printed no FTP/SFTP credentials');
        const origin = `http://127.0.0.1:${service.ports.http!}`;
        const mailbox = demoMailbox(service, dataDir);
        const target = (protocol: 'sftp' | 'ftp'): UploadTarget => ({ protocol, port: service!.ports[protocol]!, username: service!.ftpUser!, password: service!.ftpPassword! });

        // The clients that announce themselves are loaded first; the others load in about the same second or two,
        // which the warm-up absorbs.
        const [soapChild, smtpChild] = await Promise.all([startReadyChild('bench/mixed/soap-client.ts'), startReadyChild('bench/mail/smtp-client.ts')]);
        step(`every channel for ${passSec} s (after ${warmupSec} s warm-up): REST ${LOAD.rest} in flight, SOAP ${LOAD.soap}, `
          + `SFTP ${LOAD.sftp} sessions, FTP ${LOAD.ftp} sessions, SMTP ${LOAD.smtp} connections`);
        const restSpec: LoadSpec = {
          origin, path: '/api/v1/ordini', headers: { 'x-api-key': service.apiKey }, orderLines: REST_LINES, refPrefix: `${prefix}-r`,
          mode: 'closed', concurrency: LOAD.rest, rate: 0, connections: LOAD.rest, warmupSec, durationSec: passSec, expectStatus: 201,
        };
        const soapSpec: SoapLoad = {
          origin, apiKey: service.apiKey, refPrefix: `${prefix}-s`, orderLines: SOAP_LINES,
          mode: 'closed', concurrency: LOAD.soap, rate: 0, warmupSec, durationSec: passSec,
        };
        const upload = (protocol: 'sftp' | 'ftp'): SmallUploads => ({
          kind: 'small', target: target(protocol), remoteDir: '/ordini', prefix: `${prefix}-${protocol}`, orderLines: FILE_LINES,
          sessions: LOAD[protocol], warmupSec, durationSec: passSec, maxFilesPerSession: MAX_FILES_PER_SESSION,
        });
        const mailSpec: MailLoad = {
          port: service.ports.smtp!, to: mailbox, from: MAIL_FROM, refPrefix: `${prefix}-m`, orderLines: MAIL_ORDER_LINES,
          connections: LOAD.smtp, mode: 'closed', concurrency: LOAD.smtp, rate: 0, warmupSec, durationSec: passSec,
        };
        const [rest, soap, sftp, ftp, mail] = await Promise.all([
          askOnce<LoadResult>('bench/load/loadgen.ts', restSpec, budget),
          soapChild.run<SoapLoadResult>(soapSpec, budget),
          askOnce<SmallUploadsResult>('bench/files/upload-client.ts', upload('sftp'), budget),
          askOnce<SmallUploadsResult>('bench/files/upload-client.ts', upload('ftp'), budget),
          smtpChild.run<MailLoadResult>(mailSpec, budget),
        ]);

        step('waiting for the service to process and answer what it acknowledged');
        const submissions = rest.sent + soap.sent + sftp.files.length + ftp.files.length + mail.accepted.length;
        const processed = await waitProcessed(service, submissions, DRAIN_TIMEOUT_MS);
        await waitReplies(sink, mail.accepted.length, DRAIN_TIMEOUT_MS);
        const code = await service.stop();
        service = undefined;
        if (code !== 0) notes.push(`run ${run}: the service exited with ${code}`);
        if (profiling) {
          notes.push(`profile pass (not in the figures): ${passSec} s of every channel, then until every reply was out`,
            ...summariseProfiles(profDir, ROOT, path.join(ROOT, 'bench/results/mixed.cpuprofile')));
        }
        const { replies } = await sink.collect();
        const counts = storeCounts(dataDir);
        const tally = tallyReplies(mail.accepted, replies, { from: mail.windowFrom, to: mail.windowTo });

        const restOther = Object.entries(rest.statuses).filter(([st]) => st !== '201').reduce((n, [, c]) => n + c, 0);
        const mailWindow = mail.accepted.filter((a) => a.inWindow && a.acceptedAt <= mail.windowTo);
        const mailLat = latencySummary(Float64Array.from(mailWindow.map((a) => a.acceptedAt - a.startedAt)));
        const runs: Record<ChannelName, ChannelRun> = {
          // loadgen counts statuses inside its window only; with none but 201 there and no error, every request it
          // sent (warm-up included) is taken as acknowledged, and the database count below checks it.
          rest: {
            acknowledged: rest.sent, perSec: rest.okPerSec, p50: rest.latency.p50, p99: rest.latency.p99,
            failed: rest.errors + rest.unanswered + restOther, firstError: rest.firstError,
          },
          soap: {
            acknowledged: soap.acknowledged, perSec: soap.okInWindow / soap.windowSec, p50: soap.latency.p50, p99: soap.latency.p99,
            failed: soap.errors + Object.values(soap.statuses).reduce((a, b) => a + b, 0), firstError: soap.firstError,
          },
          sftp: uploadRun(sftp),
          ftp: uploadRun(ftp),
          email: {
            acknowledged: mail.accepted.length, perSec: mailWindow.length / mail.windowSec, p50: mailLat.p50, p99: mailLat.p99,
            failed: mail.errors, firstError: mail.firstError,
          },
        };

        let lost = 0;
        for (const ch of CHANNELS) {
          const r = runs[ch];
          const registered = counts.ordersByChannel[ch] ?? 0;
          lost += Math.abs(r.acknowledged - registered);
          if (registered !== r.acknowledged) notes.push(`run ${run}: ${ch}: ${r.acknowledged} acknowledged, ${registered} registered`);
          if (r.failed > 0) notes.push(`run ${run}: ${ch}: ${r.failed} submissions failed or were refused (${r.firstError ?? '?'})`);
          add(`${ch}PerSec`, r.perSec);
          add(`${ch}P99`, r.p99);
        }
        if (tally.missing > 0 || tally.duplicates > 0 || tally.unknown > 0 || (counts.replies.sent ?? 0) !== mail.accepted.length) {
          notes.push(`run ${run}: e-mail: ${mail.accepted.length} accepted, ${tally.replied} replied at the sink, ${tally.duplicates} twice, `
            + `${tally.unknown} unknown; replies in the store ${JSON.stringify(counts.replies)}`);
        }
        for (const [proto, r] of [['sftp', sftp], ['ftp', ftp]] as const) {
          if (r.files.length + r.errors >= LOAD[proto] * MAX_FILES_PER_SESSION) {
            notes.push(`run ${run}: ${proto}: the sessions reached ${MAX_FILES_PER_SESSION} files each before the end, so its files/s is a lower bound`);
          }
        }
        if (processed < submissions) notes.push(`run ${run}: ${processed} submissions processed of ${submissions} within ${DRAIN_TIMEOUT_MS / 1000} s`);
        add('total', CHANNELS.reduce((n, ch) => n + runs[ch].perSec, 0));
        add('lost', lost);
        add('mailReplyP99', tally.latency.p99);
        add('mailReplies', tally.repliesInWindow / mail.windowSec);
        if (!profiling) details.push({
          run, channels: runs, counts, submissions, processed,
          clients: {
            rest: { ...rest }, soap, sftp: { files: sftp.files.length, errors: sftp.errors }, ftp: { files: ftp.files.length, errors: ftp.errors },
            mail: { ...mail, accepted: mail.accepted.length, replyLatency: tally.latency },
          },
        });
        step(`${CHANNELS.map((ch) => `${ch} ${runs[ch].perSec.toFixed(0)}/s p99 ${runs[ch].p99.toFixed(0)} ms`).join(', ')}; `
          + `acknowledged − registered: ${lost}`);
      } finally {
        await service?.stop();
        await sink.stop();
      }
    }

    const m = (k: string) => samples.get(k) ?? [];
    const metrics: Metric[] = [
      ...CHANNELS.flatMap((ch): Metric[] => [
        { name: `${ch}: orders/s`, unit: 'orders/s', better: 'higher', samples: m(`${ch}PerSec`) },
        { name: `${ch}: p99 to acknowledgement`, unit: 'ms', better: 'lower', samples: m(`${ch}P99`) },
      ]),
      { name: 'email: replies received during the window', unit: 'msgs/s', better: 'higher', samples: m('mailReplies') },
      { name: 'email: submission → reply p99', unit: 'ms', better: 'lower', samples: m('mailReplyP99') },
      { name: 'all channels: orders/s', unit: 'orders/s', better: 'higher', samples: m('total') },
      { name: 'acknowledged − registered (all channels)', unit: 'orders', better: 'lower', samples: m('lost'), target: { value: 0, op: '<=' } },
    ];
    notes.push('acknowledgement: REST 201 and SOAP esito ok (the order is registered), SFTP close and FTP 226 (the file is committed; '
      + 'its order is registered just after), SMTP 250 after DATA (the message is committed; its order and reply come later)');
    notes.push('each client measures its own window; they start within a second or two of each other (the warm-up absorbs it)');
    return {
      settings: {
        store: 'SQLite (synchronous=FULL)', windowSec, warmupSec, load: LOAD,
        orders: { rest: `JSON, ${REST_LINES} lines`, soap: `InviaOrdine, ${SOAP_LINES} lines`, files: `CSV, ${FILE_LINES} lines per file`, email: `one JSON or CSV attachment, ${MAIL_ORDER_LINES} lines` },
        clients: 'one process per channel: undici (REST, SOAP), ssh2 and basic-ftp, nodemailer pool; replies to a minimal SMTP sink',
        logLevel: 'info (logs piped to the benchmark and counted)', freshDatabaseEachRun: true,
      },
      durability: 'every acknowledgement follows a commit (SQLite WAL, synchronous=FULL): REST and SOAP after the order is registered, '
        + 'SFTP/FTP/SMTP after the file or message is stored',
      metrics,
      notes,
      details,
    };
  },
};
