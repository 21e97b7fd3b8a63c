// Lint rules: typescript-eslint's recommended set, type-aware where it catches real bugs
// (floating promises lose errors; a lost error in a channel can mean an unacknowledged order).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'bench/results/', '.tmp-test/'] },
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
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)channels/', message: 'the layers below the channels never import a channel' }] }],
    },
  },
  ...['rest', 'soap', 'files', 'mail', 'connectors', 'web'].map((channel) => ({
    files: [`src/channels/${channel}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{
        regex: `^(\\.\\./)+(${['rest', 'soap', 'files', 'mail', 'connectors', 'web'].filter((c) => c !== channel).join('|')})/`,
        message: 'a channel never imports a sibling channel: move what they share to src/http/ or src/render/',
      }] }],
    },
  })),
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
