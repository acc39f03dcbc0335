import { spawnSync } from 'node:child_process';
import { ensureProjectGraph, SKIPPED_RULE_WARNING } from './project-graph';

// The module boundaries of DESIGN §1 must bite: a breach written into a core library fails lint.
// The file is linted from stdin under a path inside the project, so no breach ever sits in the tree.
function lintAs(filePath: string, source: string) {
  const result = spawnSync(
    process.execPath,
    ['node_modules/eslint/bin/eslint.js', '--stdin', '--stdin-filename', filePath, '--format', 'json'],
    {
      input: source,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  // The rule reads Nx's cached project graph and skips itself without one: a skip must fail, not pass.
  expect(`${result.stdout}${result.stderr}`).not.toContain(SKIPPED_RULE_WARNING);
  const [report] = JSON.parse(result.stdout) as Array<{ messages: Array<{ ruleId: string; message: string }> }>;
  return report!.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
}

describe('module boundaries', () => {
  // Independent of whatever cache this machine has: a fresh clone has no .nx/ at all.
  beforeAll(() => ensureProjectGraph(), 60_000);

  it('refuse an I/O package and another service internals in a core library', () => {
    const messages = lintAs(
      'libs/cart/core/src/breach.ts',
      "import knex from 'knex';\nimport { catalogUseCases } from '@commerce/catalog-core';\nexport const x = [knex, catalogUseCases];\n",
    );
    expect(messages).toEqual([
      expect.stringContaining('"type:core" is not allowed to import "knex"'),
      expect.stringContaining('"scope:cart" can only depend on libs tagged with'),
    ]);
  }, 120_000);

  it('allow a core library to use another service contracts and the shared utilities', () => {
    const messages = lintAs(
      'libs/cart/core/src/fine.ts',
      "import type { CatalogClient } from '@commerce/catalog-contracts';\nimport { DomainError } from '@commerce/shared-errors';\nexport type X = CatalogClient | DomainError;\n",
    );
    expect(messages).toEqual([]);
  }, 120_000);

  it('refuse the bus adapters in a contracts library', () => {
    const messages = lintAs(
      'libs/order/contracts/src/breach.ts',
      "import { createEventBus } from '@commerce/shared-bus';\nexport const x = createEventBus;\n",
    );
    expect(messages).toEqual([expect.stringContaining('"type:contracts" can only depend on libs tagged with')]);
  }, 120_000);

  // Issue 24 part 4: the ERP's contracts are the ground floor, the back office the top; no arrow runs back up.
  it('allow every service to read the ERP contracts, and the back office the services contracts', () => {
    expect(
      lintAs(
        'libs/order/core/src/fine.ts',
        "import type { SoapOrder } from '@commerce/erp-contracts';\nimport type { OrderDto } from '@commerce/order-contracts';\nexport type X = SoapOrder | OrderDto;\n",
      ),
    ).toEqual([]);
    expect(
      lintAs(
        'libs/backoffice/core/src/fine.ts',
        "import type { ProductUpserted } from '@commerce/catalog-contracts';\nimport type { SoapProduct } from '@commerce/erp-contracts';\nexport type X = typeof ProductUpserted | SoapProduct;\n",
      ),
    ).toEqual([]);
  }, 120_000);

  it('refuse a service below the back office reading its contracts', () => {
    const messages = lintAs(
      'libs/catalog/core/src/breach.ts',
      "import { DEFAULT_SOAP_PATH } from '@commerce/backoffice-contracts';\nexport const x = DEFAULT_SOAP_PATH;\n",
    );
    expect(messages).toEqual([expect.stringContaining('"scope:catalog" can not depend on libs tagged with "scope:backoffice"')]);
  }, 120_000);

  it('refuse the ERP contracts reading any service', () => {
    const messages = lintAs(
      'libs/erp/contracts/src/breach.ts',
      "import { CatalogTopics } from '@commerce/catalog-contracts';\nexport const x = CatalogTopics;\n",
    );
    expect(messages).toEqual([expect.stringContaining('"scope:erp" can only depend on libs tagged with')]);
  }, 120_000);
});
