/**
 * With PostgreSQL the service refuses to start without INTAKE_SECRET_KEY (src/auth/secret-key-file.ts). Tests that
 * start it on PostgreSQL for other reasons get the test key, the same for every instance of a test, unless they set
 * one; the refusal itself is tested in test/cli/secret-key.test.ts.
 */
import { TEST_SECRET_KEY } from '../handoff/stores.ts';

export function withPostgresKey<E extends Record<string, string | undefined>>(env: E): E {
  return env.INTAKE_DATABASE_URL && !env.INTAKE_SECRET_KEY ? { ...env, INTAKE_SECRET_KEY: TEST_SECRET_KEY } : env;
}
