// ESLint for the TypeScript sources, tests and scripts; Prettier owns the formatting.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'test/fixtures/',
      'coverage/',
      'reports/',
      '.stryker-tmp*/',
      'stryker.*.tmp.json'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly'
      }
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
      'no-nested-ternary': 'error'
    }
  },
  {
    files: ['test/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' }
  }
)
