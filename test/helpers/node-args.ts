/**
 * How a test starts one of the repository's TypeScript modules in a child Node process: the way the test itself
 * runs. From source the child needs tsx's loader; from the compiled test tree (scripts/build-tests.mjs, what
 * `npm test` runs) the module sits next to its plain JavaScript, which Node runs alone, a second or more of CPU
 * cheaper per child.
 */
const compiled = import.meta.url.endsWith('.js');

/** Node's arguments to run `modulePath` (a .ts path, absolute or relative to the child's cwd). */
export function nodeArgs(modulePath: string): string[] {
  return compiled ? [modulePath.replace(/\.ts$/, '.js')] : ['--import', 'tsx', modulePath];
}
