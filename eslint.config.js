// ESLint (flat config): `npm run lint` checks the whole tree with zero warnings allowed.
// typescript-eslint's recommended rules everywhere, React's hook rules in the app, and the layer
// rules the compiler cannot state: the engine imports no Node module and no DOM or Node global.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { defineConfig, globalIgnores } from 'eslint/config';

export default defineConfig([
  globalIgnores(['dist/', 'node_modules/', 'bench/out/', 'test-results/', 'test/fixtures/', 'public/', '.tmp/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['src/app/**/*.{ts,tsx}', 'workers/**/*.ts'],
    // The two classic hook rules only. The plugin's recommended set adds the React Compiler's
    // rules, which compile every component to check it: two thirds of the whole lint's time, for
    // an app the compiler does not build.
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: ['src/cli/**', 'src/lib/**', 'scripts/**', 'bin/**', 'test/**', 'bench/**', '*.config.{js,ts}', '.ci/**'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'os', 'child_process', 'react', 'react-dom', 'comlink'],
              message: 'The engine is pure TypeScript: no Node modules, no DOM, no app libraries.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        'process',
        'Buffer',
        'window',
        'document',
        'navigator',
        'self',
        'require',
        '__dirname',
      ],
    },
  },
]);
