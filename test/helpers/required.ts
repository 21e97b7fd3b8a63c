/**
 * A test that needs a program or a server the machine may lack (PostgreSQL, Dovecot) is skipped, visibly and with
 * the reason, on a developer's machine; in CI (CI=true, as CI runs .ci/run) it must never be skipped, because
 * .ci/run promises to install or start what it needs: there the missing part fails the run instead.
 */
export function skipUnlessPresent(missing: string | undefined, env: Record<string, string | undefined> = process.env): string | false {
  if (missing === undefined) return false;
  if (env.CI && env.CI !== 'false') throw new Error(`CI must run this test, but it cannot here: ${missing}`);
  return missing;
}
