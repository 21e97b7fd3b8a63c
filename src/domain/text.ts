/**
 * Text checks shared by the layers above (stage A, the decoders' messages, the e-mail channel's labels).
 */

/**
 * Half of a UTF-16 surrogate pair without its other half: no character at all. JavaScript strings can hold one (a
 * JSON escape such as "\ud83c", text cut inside an emoji), but PostgreSQL refuses it in text and JSON, so a value
 * holding one could not be stored.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function hasLoneSurrogate(s: string): boolean {
  return s.search(LONE_SURROGATE) >= 0;
}

/** `s` with every lone surrogate replaced by `by` (dropped by default). */
export function withoutLoneSurrogates(s: string, by = ''): string {
  return s.replace(LONE_SURROGATE, by);
}

/**
 * Text that can be stored and compared as it is: no NUL (PostgreSQL refuses it in text) and no lone surrogate. For
 * values checked before any lookup or comparison, such as credentials.
 */
export function isCleanText(s: string): boolean {
  return !s.includes('\0') && !hasLoneSurrogate(s);
}
