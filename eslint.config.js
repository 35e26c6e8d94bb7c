// One style (neostandard, the standard style fastify uses; `eslint --fix` is the formatter) plus
// typescript-eslint's type-checked rules over the TypeScript sources. dist/ is build output.
import neostandard from 'neostandard'
import tseslint from 'typescript-eslint'

export default [
  { ignores: ['dist/**', 'node_modules/**', '.svc/**', 'coverage/**'] },
  ...neostandard({ ts: true }),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      // `void promise` marks a deliberately unawaited promise (no-floating-promises).
      'no-void': ['error', { allowAsStatement: true }],
      '@stylistic/max-len': ['error', {
        code: 120,
        ignoreUrls: true,
        ignoreStrings: true,
        ignoreTemplateLiterals: true,
        ignoreRegExpLiterals: true
      }],
      // The codebase's type-literal style: commas on one line, no delimiter at line ends.
      '@stylistic/member-delimiter-style': ['error', {
        multiline: { delimiter: 'none' },
        singleline: { delimiter: 'comma', requireLast: false }
      }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{
          from: 'package',
          package: 'node:test',
          name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach']
        }]
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-condition': 'error'
    }
  }
]
