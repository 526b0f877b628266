import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.data/',
      '.bench/',
      '.test-map/',
      '.dependency-cruiser.cjs',
      'lib/client/dist/',
      'lib/client/src/generated.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests and offline tools handle arbitrary JSON and whole-table items.
    files: ['test/**', 'lib/checker/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
