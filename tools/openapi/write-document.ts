import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PRODUCT_FILTER_FIELDS } from '@commerce/shared-config';
import { createCheckoutOpenApi } from '@commerce/checkout-contracts';

/**
 * Writes the checkout's OpenAPI document (generated from its zod schemas) to the file named, for the linters
 * (tools/openapi/lint): the document of a store with every extra product filter field a store may enable.
 */
const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: write-document.ts <file>');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(createCheckoutOpenApi({ productFilterFields: PRODUCT_FILTER_FIELDS }), null, 2)}\n`);
