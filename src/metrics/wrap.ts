/**
 * Metrics hooks that sit around the ports the channels use, so the channels need no code of their own for them:
 * acknowledgement latency around the intake's submit calls, and lockout refusals around the authenticator.
 */
import type { Authenticator } from '../auth/authenticator.ts';
import type { Intake } from '../intake/intake.ts';
import type { Metrics } from './metrics.ts';

/**
 * The intake as channels see it, with submit (REST, SOAP, connectors: the answer follows the outcome) and
 * submitInBackground (file channels: 226 / the close status follows the durable save) timed as that channel's
 * acknowledgement. What a channel does after (rendering, a few bytes on the socket) is not included; reading the
 * request body is not either, as it depends on the sender's line.
 */
export function timeAcks(intake: Intake, metrics: Metrics): Intake {
  return {
    ...intake,
    // Every argument is passed on as it came: the options after the submission (e.g. the upload budget's onSettled)
    // belong to the intake, and a wrapper that dropped them would leave them never called.
    submit: (...args) => metrics.timeAck(args[0].channel, () => intake.submit(...args)),
    submitInBackground: (...args) => metrics.timeAck(args[0].channel, () => intake.submitInBackground(...args)),
  };
}

/** The authenticator, counting the password logins it refuses because the user or the address is locked out. */
export function countLockouts(auth: Authenticator, metrics: Metrics): Authenticator {
  return {
    ...auth,
    password(user, password, remoteAddress) {
      if (typeof user === 'string' && auth.isLocked(user, remoteAddress)) metrics.lockoutRefusal();
      return auth.password(user, password, remoteAddress);
    },
  };
}
