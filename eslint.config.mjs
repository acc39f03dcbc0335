import nx from '@nx/eslint-plugin';

const services = ['checkout', 'cart', 'catalog', 'account', 'payment', 'order', 'backoffice'];
// I/O packages that only adapters and apps may import (DESIGN §1: core never imports them).
const ioPackages = ['knex', 'knex-pglite', 'pg', '@electric-sql/*', 'kafkajs', 'ioredis', 'meilisearch', 'minisearch', 'soap', 'koa', '@koa/*', 'undici', 'prom-client'];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', 'data', 'tmp', '.nx', 'coverage', '**/*.js', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            // A service reaches another only through that service's contracts. The back office sits on top (it
            // turns the other services' events into the ERP's change feed): no service below reads it, even
            // through another library. What the ERP and the services share is on the ground floor (`scope:erp`).
            ...services.map((s) => ({
              sourceTag: `scope:${s}`,
              onlyDependOnLibsWithTags: [`scope:${s}`, 'scope:shared', 'type:contracts'],
              ...(s === 'backoffice' ? {} : { notDependOnLibsWithTags: ['scope:backoffice'] }),
            })),
            // The ERP's entities, upsert events and change events: read by every service, importing none of them.
            { sourceTag: 'scope:erp', onlyDependOnLibsWithTags: ['scope:erp', 'scope:shared'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:all', onlyDependOnLibsWithTags: ['*'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:core', 'type:adapters', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:adapters', onlyDependOnLibsWithTags: ['type:core', 'type:adapters', 'type:contracts', 'type:util', 'type:testing'] },
            { sourceTag: 'type:core', onlyDependOnLibsWithTags: ['type:core', 'type:contracts', 'type:util'], bannedExternalImports: ioPackages },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'], bannedExternalImports: ioPackages.filter((p) => p !== 'undici') },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'], bannedExternalImports: ioPackages.filter((p) => p !== 'prom-client') },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['*'] },
          ],
        },
      ],
    },
  },
  {
    // Tests may assert what they just arranged.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/*.contract.ts', 'tools/**/*.ts', '**/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
];
