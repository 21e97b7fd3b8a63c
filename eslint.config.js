// Lint rules: typescript-eslint's recommended set, type-aware where it catches real bugs
// (floating promises lose errors; a lost error in a channel can mean an unacknowledged order).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const BELOW_CHANNELS = { regex: '(^|/)channels/', message: 'the layers below the channels never import a channel' };
/** The store's engines and its common code, seen from outside src/store/. */
const STORE = {
  regex: '^(\\.\\./)+store/',
  message: 'channels, the hand-off and http/ reach the store through its ports (src/domain/store/), never an engine or store/common/',
};
/** A relative import that climbs `depth` folders or more leaves the folder: `depth` is the file's depth in it. */
const outside = (depth, folder) => ({
  regex: `^(\\.\\./){${depth},}`,
  message: `${folder} is the ground floor: it imports nothing of ours (docs/development/architecture.md)`,
});
/** Leaving src/store/ for anything but the allowed sibling of src/store/ (the domain). */
const outsideBut = (depth, allowed) => ({
  regex: `^(\\.\\./){${depth}}(?!${allowed}/)|^(\\.\\./){${depth + 1},}`,
  message: `the store imports only src/${allowed}/ and its own folders (docs/development/architecture.md)`,
});
/** From one store folder into another that it must not see. */
const engine = (...folders) => ({
  regex: `^\\.\\./(${folders.join('|')})/`,
  message: 'sqlite/ and postgres/ never import each other, common/ imports neither: what both engines share lives in store/common/',
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'bench/results/', '.tmp-test/', '.test-build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }],
      }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Arrows that run one way (docs/development/architecture.md): the intake core, the store, what HTTP channels share
  // (http/) and the renderers (render/) never reach up into a channel, and a channel never reaches into a sibling:
  // what two channels share lives below both.
  {
    files: ['src/intake/**/*.ts', 'src/store/**/*.ts', 'src/http/**/*.ts', 'src/render/**/*.ts', 'src/handoff/**/*.ts',
      'src/auth/**/*.ts', 'src/catalog/**/*.ts', 'src/customers/**/*.ts', 'src/connectors/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [BELOW_CHANNELS] }],
    },
  },
  { files: ['src/http/**/*.ts', 'src/handoff/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [BELOW_CHANNELS, STORE] }] } },
  // The ground floor: domain types, the error catalog and the store port import nothing of ours (a later block for
  // the same files replaces an earlier one's no-restricted-imports, so each block lists every pattern it needs).
  { files: ['src/domain/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [outside(1, 'src/domain/')] }] } },
  { files: ['src/domain/*/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [outside(2, 'src/domain/')] }] } },
  // The store implements the port and imports only the domain and its own folders; the two engines never import each
  // other (what both use lives in store/common/), and common/ belongs to neither engine.
  { files: ['src/store/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [outsideBut(1, 'domain')] }] } },
  { files: ['src/store/sqlite/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [outsideBut(2, 'domain'), engine('postgres', 'copy')] }] } },
  { files: ['src/store/postgres/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [outsideBut(2, 'domain'), engine('sqlite', 'copy')] }] } },
  { files: ['src/store/common/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [outsideBut(2, 'domain'), engine('sqlite', 'postgres', 'copy')] }] } },
  { files: ['src/store/copy/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [outsideBut(2, 'domain')] }] } },
  // The intake core reaches the store only through the port's types (src/domain/store/), never an implementation.
  {
    files: ['src/intake/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [BELOW_CHANNELS, {
        regex: '^(\\.\\./)+(store|cli|handoff)/|^(\\.\\./)+main\\.ts$',
        message: 'the intake core uses the store through its ports (src/domain/store/), never an engine; it knows no CLI nor hand-off',
      }] }],
    },
  },
  // One block per channel and folder depth, so that the `../` count reaching src/channels/ is exact: from
  // src/channels/web/console/, `../../rest/` is a sibling channel but `../../../connectors/` is src/connectors/.
  ...['rest', 'soap', 'files', 'mail', 'connectors', 'web'].flatMap((channel) => [0, 1, 2, 3].map((depth) => ({
    files: [`src/channels/${channel}/${'*/'.repeat(depth)}*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{
        regex: `^(\\.\\./){${depth + 1}}(${['rest', 'soap', 'files', 'mail', 'connectors', 'web'].filter((c) => c !== channel).join('|')})/`,
        message: 'a channel never imports a sibling channel: move what they share to src/http/ or src/render/',
      }, STORE] }],
    },
  }))),
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
