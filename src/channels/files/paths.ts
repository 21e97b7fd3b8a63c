/**
 * Client paths → paths of the customer's virtual tree. Every FTP and SFTP path goes through resolveClientPath and
 * nothing else, so there is one place that decides what a hostile name can do.
 *
 * What must stay true: the result is an absolute POSIX path inside the customer's root, made only of segments that
 * are plain names (no '.', '..', '/', '\', NUL or control characters, at most MAX_PATH_NAME_BYTES bytes each; a name
 * the client creates at most MAX_NAME_BYTES, see newNameProblem). Nothing is
 * decoded: '%2e%2e' is a file called '%2e%2e'. A '..' that would climb above the root is refused, not clamped, so
 * the client sees an error instead of silently writing somewhere else than it asked.
 */

/**
 * Longest name of one path segment, in UTF-8 bytes: the common file-system limit (ext4, NTFS in practice), so a
 * name a client can create here is also a name it can save on its own disk.
 */
export const MAX_NAME_BYTES = 255;
/**
 * Longest name a path may hold, in UTF-8 bytes. The tree derives longer names from a name of MAX_NAME_BYTES (its
 * outcome files `<name>.esito.json`; an older upload of the same name, `<base>.<receive time>[-n][.<id>].<ext>`,
 * names.ts), and every name a listing shows must be one the client can then ask for.
 */
export const MAX_PATH_NAME_BYTES = MAX_NAME_BYTES + 64;
/** Longest whole path: deeper or longer paths are never ours (the tree is two levels deep) and only cost work. */
export const MAX_PATH_LENGTH = 4096;

export type PathResult =
  | { ok: true; path: string; segments: string[] }
  | { ok: false; reason: string };

/** C0 controls and DEL: no real file name holds them, and they corrupt listings and logs. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const TOO_LONG = `nome troppo lungo (al massimo ${MAX_NAME_BYTES} byte)`;

/** Why a single name (no slashes) is not acceptable, or undefined when it is. */
export function badName(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return 'nome di file non valido';
  if (name.includes('/')) return 'il nome non può contenere "/"';
  if (name.includes('\\')) return 'il nome non può contenere "\\"';
  if (CONTROL.test(name)) return 'il nome non può contenere caratteri di controllo';
  if (Buffer.byteLength(name, 'utf8') > MAX_PATH_NAME_BYTES) return TOO_LONG;
  return undefined;
}

/** Why a name cannot be given to a new file (an upload, a rename's target), beyond badName; undefined when it can. */
export function newNameProblem(name: string): string | undefined {
  return Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES ? TOO_LONG : undefined;
}

/**
 * Resolve `input` against the current directory `cwd` (itself an absolute path produced by this function).
 * An empty input or '.' is the current directory.
 */
export function resolveClientPath(cwd: string, input: string | null | undefined): PathResult {
  const raw = input ?? '';
  if (typeof raw !== 'string') return { ok: false, reason: 'percorso non valido' };
  if (raw.length > MAX_PATH_LENGTH) return { ok: false, reason: 'percorso troppo lungo' };
  if (raw.includes('\u0000') || CONTROL.test(raw)) return { ok: false, reason: 'il percorso non può contenere caratteri di controllo' };
  // A backslash is a separator on Windows and a letter on POSIX: either reading could surprise someone, so neither.
  if (raw.includes('\\')) return { ok: false, reason: 'il percorso non può contenere "\\": usare "/"' };

  const segments = raw.startsWith('/') ? [] : cwd.split('/').filter((s) => s !== '');
  for (const part of raw.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (segments.length === 0) return { ok: false, reason: 'percorso fuori dalla cartella dell\'utente' };
      segments.pop();
      continue;
    }
    const why = badName(part);
    if (why) return { ok: false, reason: why };
    segments.push(part);
  }
  return { ok: true, path: '/' + segments.join('/'), segments };
}
