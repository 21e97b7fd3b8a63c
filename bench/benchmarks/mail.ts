/**
 * E-mail: order mails by SMTP to the real service (its own process, fresh SQLite database each run), whose replies go
 * through INTAKE_SMTP_RELAY to a sink (its own process) that timestamps each one. The SMTP client (nodemailer, pooled
 * connections) is a third process. Each run measures, in turn:
 * 1. a closed loop of a fixed number of messages in flight: the SMTP accept rate (250 after DATA), the end-to-end
 *    rate (accepted messages ÷ time from the first submission to the last reply, so the backlog's drain counts) and
 *    the latency from submission start to reply received — when the service accepts faster than it answers, this
 *    latency is the backlog's queueing;
 * 2. an open loop at half the end-to-end rate just measured: the latency under a load the service can carry.
 * After each run the service is stopped and its database checked: every accepted message has its order registered,
 * its message finished and exactly one reply sent, and the sink received exactly one reply for each.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { storeCounts } from '../lib/channel-counts.ts';
import { ROOT } from '../lib/children.ts';
import { summariseProfiles } from '../profile/summarise.ts';
import { startReadyChild } from '../lib/ready-child.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { latencySummary } from '../lib/stats.ts';
import { MAIL_LIMITS } from '../../src/channels/mail/limits.ts';
import { tallyReplies } from '../mail/replies.ts';
import { demoMailbox, startSink, waitReplies, type RunningSink } from '../mail/setup.ts';
import type { MailLoad, MailLoadResult } from '../mail/protocol.ts';
import type { Benchmark, BenchContext, Metric } from '../lib/types.ts';

/** Lines of each attached order: a realistic small order (about 1 KiB as JSON or CSV). */
export const MAIL_ORDER_LINES = 10;
/**
 * SMTP connections of the client, and messages in flight in the closed loop. A customer's mail server opens one or
 * two; 8 stands for a few customers sending at once, well under the service's 50 connections.
 */
export const MAIL_CONNECTIONS = 8;
/** The customer's address the replies go to (the sink takes any); not the service's domain, not a robot's. */
export const MAIL_FROM = 'acquisti@cliente-bench.example';
/** After its window, how long the service may take to answer what it accepted; past that the run reports it. */
const DRAIN_TIMEOUT_MS = 5 * 60_000;
const CLIENT_SLACK_MS = 120_000;

export function mailLoad(ctx: Pick<BenchContext, 'warmupSec' | 'durationSec'>, port: number, to: string, refPrefix: string,
  mode: 'closed' | 'open', rate = 0): MailLoad {
  return {
    port, to, from: MAIL_FROM, refPrefix, orderLines: MAIL_ORDER_LINES, connections: MAIL_CONNECTIONS,
    mode, concurrency: MAIL_CONNECTIONS, rate, warmupSec: ctx.warmupSec, durationSec: ctx.durationSec,
  };
}

export async function sendMails(spec: MailLoad): Promise<MailLoadResult> {
  const client = await startReadyChild('bench/mail/smtp-client.ts');
  return client.run<MailLoadResult>(spec, (spec.warmupSec + spec.durationSec) * 1000 + CLIENT_SLACK_MS);
}

/** The service environment of an SMTP run: SMTP on an ephemeral port, replies to the sink. */
export function mailEnv(sink: RunningSink): Record<string, string> {
  return { INTAKE_SMTP_PORT: '0', INTAKE_SMTP_RELAY: sink.url };
}

/**
 * One closed-loop window with the service under `node --cpu-prof` (not in the figures), drained until every reply is
 * out, so the profile covers receiving, deriving and replying; its summary goes into the notes.
 */
async function profilePass(ctx: BenchContext): Promise<string[]> {
  const dataDir = path.join(ctx.tmpDir, 'service-profile');
  mkdirSync(dataDir, { recursive: true });
  const profDir = path.join(ctx.tmpDir, 'cpuprofile');
  const sink = await startSink();
  let service: RunningService | undefined;
  try {
    service = await startService({ dataDir, env: mailEnv(sink), waitForPorts: ['smtp'], cpuProfDir: profDir });
    ctx.progress(`profiling the service: ${ctx.durationSec} s closed loop, then until every reply is out`);
    const t0 = Date.now();
    const res = await sendMails(mailLoad(ctx, service.ports.smtp!, demoMailbox(service, dataDir), `P${randomBytes(4).toString('hex')}`, 'closed'));
    const replied = await waitReplies(sink, res.accepted.length, DRAIN_TIMEOUT_MS);
    const seconds = (Date.now() - t0) / 1000;
    await service.stop();
    service = undefined;
    return [
      `profile pass (not in the figures): ${res.accepted.length} messages accepted, ${replied} replied in ${seconds.toFixed(1)} s under the profiler`,
      ...summariseProfiles(profDir, ROOT, path.join(ROOT, 'bench/results/mail.cpuprofile')),
    ];
  } finally {
    await service?.stop();
    await sink.stop();
  }
}

export const mailBenchmark: Benchmark = {
  name: 'mail',
  description: 'SMTP submission → reply received by a local sink: messages/s, SMTP accept rate, latency',
  byDefault: true,
  async run(ctx: BenchContext) {
    const samples = new Map<string, number[]>();
    const add = (k: string, v: number) => samples.set(k, [...(samples.get(k) ?? []), v]);
    const notes: string[] = [];
    const details: unknown[] = [];
    let sampleBytes = 0;
    if (ctx.profile) notes.push(...await profilePass(ctx));

    for (let run = 1; run <= ctx.runs; run++) {
      const step = (what: string) => ctx.progress(`mail run ${run}/${ctx.runs}: ${what}`);
      const prefix = `M${randomBytes(4).toString('hex')}`;
      const dataDir = path.join(ctx.tmpDir, `service-${run}`);
      mkdirSync(dataDir, { recursive: true });
      const sink = await startSink();
      let service: RunningService | undefined;
      try {
        service = await startService({ dataDir, env: mailEnv(sink), waitForPorts: ['smtp'] });
        const port = service.ports.smtp!;
        const mailbox = demoMailbox(service, dataDir);

        step(`closed loop, ${MAIL_CONNECTIONS} messages in flight`);
        const closed = await sendMails(mailLoad(ctx, port, mailbox, `${prefix}-c`, 'closed'));
        sampleBytes = closed.sampleBytes;
        step(`waiting for the replies to ${closed.accepted.length} accepted messages`);
        await waitReplies(sink, closed.accepted.length, DRAIN_TIMEOUT_MS);
        const closedReplies = (await sink.collect()).replies;
        const closedTally = tallyReplies(closed.accepted, closedReplies, { from: closed.windowFrom, to: closed.windowTo });

        // While the client floods the SMTP server the derivations get few commits (see the notes), so the replies of
        // the window alone understate what the service can do. End to end counts the whole burst: every accepted
        // message, from the first submission to the last reply. Half of that is a load the service can carry.
        const firstStart = Math.min(...closed.accepted.map((a) => a.startedAt));
        const endToEnd = closed.accepted.length / ((closedTally.lastReplyAt - firstStart) / 1000);
        const afterWindow = closedReplies.filter((r) => r.receivedAt > closed.windowTo).length;
        const drainRate = afterWindow / ((closedTally.lastReplyAt - closed.windowTo) / 1000);
        const halfRate = Math.max(1, Math.round(endToEnd / 2));
        step(`open loop at ${halfRate} messages/s (half of the ${endToEnd.toFixed(0)}/s end to end)`);
        const open = await sendMails(mailLoad(ctx, port, mailbox, `${prefix}-o`, 'open', halfRate));
        const total = closed.accepted.length + open.accepted.length;
        step(`waiting for the replies to ${total} accepted messages`);
        await waitReplies(sink, total, DRAIN_TIMEOUT_MS);

        const code = await service.stop();
        service = undefined;
        if (code !== 0) notes.push(`run ${run}: the service exited with ${code}`);
        const { replies, connections } = await sink.collect();
        const counts = storeCounts(dataDir);
        const openTally = tallyReplies(open.accepted, replies, { from: open.windowFrom, to: open.windowTo });
        const all = tallyReplies([...closed.accepted, ...open.accepted], replies, { from: 0, to: 0 });

        // Nothing lost, nothing twice: every accepted message is one registered order, one finished message, one
        // reply sent by the service and one reply received by the sink.
        const registered = counts.ordersByChannel.email ?? 0;
        const sent = counts.replies.sent ?? 0;
        const problems: string[] = [];
        if (registered !== total) problems.push(`${registered} orders registered`);
        if (counts.mailMessages !== total || counts.mailDone !== total) problems.push(`${counts.mailMessages} messages stored, ${counts.mailDone} finished`);
        if (sent !== total) problems.push(`replies ${JSON.stringify(counts.replies)}`);
        if (all.missing > 0) problems.push(`${all.missing} without a reply at the sink (e.g. ${all.missingSample.join(', ')})`);
        if (all.duplicates > 0 || all.unknown > 0) problems.push(`${all.duplicates} duplicate and ${all.unknown} unknown replies at the sink`);
        if (problems.length > 0) notes.push(`run ${run}: of ${total} accepted messages: ${problems.join('; ')}`);
        const errors = closed.errors + open.errors;
        if (errors > 0) notes.push(`run ${run}: ${errors} submissions failed or refused (${closed.firstError ?? open.firstError})`);
        if (counts.repliesRetried > 0) notes.push(`run ${run}: ${counts.repliesRetried} replies needed more than one attempt (relay retry)`);

        const acceptedInWindow = closed.accepted.filter((a) => a.inWindow && a.acceptedAt <= closed.windowTo);
        const acceptLat = latencySummary(Float64Array.from(acceptedInWindow.map((a) => a.acceptedAt - a.startedAt)));
        const openAccept = latencySummary(Float64Array.from(open.accepted.filter((a) => a.inWindow).map((a) => a.acceptedAt - a.startedAt)));
        add('accept', acceptedInWindow.length / closed.windowSec);
        add('e2e', endToEnd);
        add('inWindow', closedTally.repliesInWindow / closed.windowSec);
        add('drainRate', afterWindow > 0 ? drainRate : NaN);
        add('acceptP50', acceptLat.p50);
        add('acceptP99', acceptLat.p99);
        add('closedP50', closedTally.latency.p50);
        add('closedP99', closedTally.latency.p99);
        add('closedMax', closedTally.latency.max);
        add('drain', Math.max(0, (closedTally.lastReplyAt - closed.windowTo) / 1000));
        add('halfRate', halfRate);
        add('openMissed', open.missed);
        add('openAcceptP99', openAccept.p99);
        add('openP50', openTally.latency.p50);
        add('openP99', openTally.latency.p99);
        add('openMax', openTally.latency.max);
        details.push({
          run, closed: { ...closed, accepted: closed.accepted.length, acceptLatency: acceptLat, replyLatency: closedTally.latency },
          open: { ...open, accepted: open.accepted.length, acceptLatency: openAccept, replyLatency: openTally.latency },
          sinkConnections: connections, counts, check: { total, missing: all.missing, duplicates: all.duplicates, unknown: all.unknown },
        });
        ctx.progress(`mail run ${run}: accepted ${(acceptedInWindow.length / closed.windowSec).toFixed(0)}/s, end to end ${endToEnd.toFixed(0)}/s `
          + `(closed p99 ${closedTally.latency.p99.toFixed(0)} ms); at ${halfRate}/s p50 ${openTally.latency.p50.toFixed(0)} ms `
          + `p99 ${openTally.latency.p99.toFixed(0)} ms; ${registered}/${total} registered, ${all.replied}/${total} replied`);
      } finally {
        await service?.stop();
        await sink.stop();
      }
    }

    const m = (k: string) => samples.get(k) ?? [];
    const metrics: Metric[] = [
      { name: `SMTP accepted (250 after DATA), ${MAIL_CONNECTIONS} in flight`, unit: 'msgs/s', better: 'higher', samples: m('accept') },
      { name: 'end to end: accepted ÷ (first submission → last reply)', unit: 'msgs/s', better: 'higher', samples: m('e2e') },
      { name: 'replies during the window (intake flooded)', unit: 'msgs/s', better: 'higher', samples: m('inWindow') },
      { name: 'replies after the window (no intake)', unit: 'msgs/s', better: 'higher', samples: m('drainRate') },
      { name: 'closed loop: submission → 250 p50', unit: 'ms', better: 'lower', samples: m('acceptP50') },
      { name: 'closed loop: submission → 250 p99', unit: 'ms', better: 'lower', samples: m('acceptP99') },
      { name: 'closed loop: submission → reply p50', unit: 'ms', better: 'lower', samples: m('closedP50') },
      { name: 'closed loop: submission → reply p99', unit: 'ms', better: 'lower', samples: m('closedP99') },
      { name: 'closed loop: submission → reply max', unit: 'ms', better: 'lower', samples: m('closedMax') },
      { name: 'closed loop: last reply after the window', unit: 's', better: 'lower', samples: m('drain') },
      { name: 'open at half the end-to-end rate: rate', unit: 'msgs/s', better: 'higher', samples: m('halfRate') },
      { name: 'open at half: not sent (saturated)', unit: 'msgs', better: 'lower', samples: m('openMissed') },
      { name: 'open at half: submission → 250 p99', unit: 'ms', better: 'lower', samples: m('openAcceptP99') },
      { name: 'open at half: submission → reply p50', unit: 'ms', better: 'lower', samples: m('openP50') },
      { name: 'open at half: submission → reply p99', unit: 'ms', better: 'lower', samples: m('openP99') },
      { name: 'open at half: submission → reply max', unit: 'ms', better: 'lower', samples: m('openMax') },
    ];
    notes.push('latencies run from the submission start (open loop: its scheduled time) to the end of the reply\'s DATA at the sink, '
      + 'both epoch ms of this machine (performance.timeOrigin + now)');
    notes.push('in the closed loop the service accepts mail faster than it answers it, so the backlog grows through the window and '
      + 'its submission → reply latency is mostly queueing; the open loop at half the end-to-end rate shows the latency of a carried load');
    notes.push('end to end = the closed loop\'s accepted messages ÷ the time from its first submission to its last reply (warm-up '
      + 'included); "during the window" and "after the window" split the same replies by when they arrived');
    return {
      settings: {
        store: 'SQLite (synchronous=FULL)', connections: MAIL_CONNECTIONS, closedLoopInFlight: MAIL_CONNECTIONS,
        openLoopRate: 'half of the run\'s end-to-end rate', warmupSec: ctx.warmupSec, durationSec: ctx.durationSec,
        message: { attachment: `one order of ${MAIL_ORDER_LINES} lines, JSON and CSV in turn`, sampleBytes },
        client: 'nodemailer SMTP pool (no TLS) in a separate process', sink: 'minimal SMTP receiver (greets at once, no PIPELINING/TLS) in a separate process, as INTAKE_SMTP_RELAY',
        serviceLimits: { deriveConcurrency: MAIL_LIMITS.deriveConcurrency, replyBatch: MAIL_LIMITS.replyBatch, replyRetryFirstMs: MAIL_LIMITS.replyRetryFirstMs },
        logLevel: 'info (logs piped to the benchmark and counted)', freshDatabaseEachRun: true,
      },
      durability: 'the service answers 250 after the message is committed (SQLite WAL, synchronous=FULL); the reply is queued in the '
        + 'transaction that finishes the message and marked sent after the relay\'s 250',
      metrics,
      notes,
      details,
    };
  },
};
