// Lint setup: typescript-eslint's recommended rules plus the house rules that keep
// promises awaited and `any` out of exported signatures.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.local/**',
      'test/artifacts/**',
      'dist/**',
      'client/dist/**',
      'web/dist/**',
      'eslint.config.js',
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Browser scripts the web pages inline (api/dashboard): plain JavaScript for the browser,
    // outside the TypeScript project.
    files: ['api/dashboard/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'navigator',
          'sessionStorage',
          'fetch',
          'URL',
          'URLSearchParams',
          'Intl',
          'Node',
          'setTimeout',
          'clearTimeout',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
  {
    // The simulator stands in for Hacienda: it may use what a real Hacienda also has (schemas,
    // signature verification, code catalogues in hacienda/ and domain/), never the service's
    // database, jobs, API, workers or its own reception client.
    files: ['simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(api|jobs|db|workers)(/|$)',
              message:
                "The simulator is Hacienda's stand-in: it must not use the service's api, jobs, db or workers.",
            },
            {
              regex: '^(\\.\\./)+hacienda/client(/|$)',
              message: "The simulator must not use the service's reception client.",
            },
          ],
        },
      ],
    },
  },
  {
    // The service never depends on its test double; tests, scripts, bench and cli may start it.
    files: [
      'api/**/*.ts',
      'jobs/**/*.ts',
      'workers/**/*.ts',
      'db/**/*.ts',
      'hacienda/**/*.ts',
      'domain/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+simulator(/|$)',
              message: 'The service must not import the Hacienda simulator.',
            },
          ],
        },
      ],
    },
  },
  {
    // The application (web/) runs in the browser: it imports only web/ and the client package's
    // generated schema types, never the service's code.
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(\\.\\./)+(api|bench|cli|config|db|documents|domain|hacienda|jobs|mail-catcher|operations|platform|scripts|simulator|telemetry|test|workers)(/|$)',
              message:
                'The application imports only web/ and the client schema types (client/src/schema.ts).',
            },
            {
              regex: '^(\\.\\./)+client/src/(?!schema\\.ts$)',
              message: 'Of the client package, the application imports only its generated schema types.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read untyped JSON responses.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
