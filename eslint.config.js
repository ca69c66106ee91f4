// ESLint: the recommended JavaScript and typescript-eslint rules (syntax-based, no type information,
// so it stays fast); formatting is Prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'src/generated/',
      'client/src/generated.ts',
      'console/generated/',
      'client/dist/',
      'console/dist/',
      'test-artifacts/',
      'dist/',
      'dist.building-*/',
      'coverage/',
      '.data/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Node scripts written as plain ES modules.
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The console's service worker: plain JavaScript run by the browser, not bundled.
    files: ['console/public/**/*.js'],
    languageOptions: { globals: { self: 'readonly', URL: 'readonly' } },
  },
  {
    rules: {
      // `any` is still used at a few seams (events, GraphQL JSON); the structure issue types them.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
);
