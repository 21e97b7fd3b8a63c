/**
 * The one way tests wait: poll a state until it holds, with a bound, never a sleep that hopes. What is waited for is
 * named, so a timeout says what did not happen.
 */

const POLL_MS = 20;

/** Poll `check` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Poll `check` until it is true; fails after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(async () => ((await check()) ? true : undefined), timeoutMs, what);
}

/**
 * Poll `read` until `enough` holds of what it returns, then return that; after `timeoutMs` return the last reading
 * instead of failing, for the caller's assertion to show what there was.
 */
export async function readWhen<T>(read: () => Promise<T>, enough: (v: T) => boolean, timeoutMs: number): Promise<T> {
  try {
    return await waitFor(async () => {
      const v = await read();
      return enough(v) ? v : undefined;
    }, timeoutMs);
  } catch {
    return read();
  }
}
