import { entityToXml } from '@commerce/backoffice-adapters';
import { generateCatalog } from '../demo/catalog-generator';
import { checkoutCall, postSoap, uniqueWord, type Endpoints } from '../e2e/skeleton.scenario';

export interface SoapBatchRound {
  /** The products_Update call, from sending to its `OK`. */
  ackMs: number;
  /** From that `OK` until `POST products` finds every variant of the batch. */
  searchableMs: number;
  variants: number;
  /** Epoch ms: the call sent, its `OK`, and the poll that found every variant (to match engine logs and tasks). */
  sentAt: number;
  ackAt: number;
  searchableAt: number;
}

/**
 * One SOAP `products_Update` of `size` new generated products (issue 8's benchmark: 3 variations × 5
 * sizes on average, every field filled): their prices first (not timed), then the products; the time to
 * the acknowledgement, and from it until every variant of the batch is found by `POST products` (each
 * name carries a word of its own, polled every 50 ms).
 */
export async function soapBatchRound(endpoints: Endpoints, size: number, seed: number): Promise<SoapBatchRound> {
  const word = uniqueWord();
  const { pricelists, products } = generateCatalog({ products: size, brands: 20, leafCategories: 50, seed });
  // New ids (P-… → <word>P-…), and the word in every name.
  const renamed = <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(/"P-(\d)/g, `"${word}P-$1`)) as T;
  const batch = renamed(products).map((p): Record<string, unknown> => ({ ...p, description: `${String(p['description'])} ${word}` }));
  const variants = batch.reduce((n, p) => n + (p['variations'] as unknown[]).length, 0);
  const prices = await postSoap(
    endpoints,
    'pricelists_Update',
    `<pricelists>${renamed(pricelists)
      .map((p) => `<pricelist>${entityToXml('Pricelist', p)}</pricelist>`)
      .join('')}</pricelists>`,
  );
  if (prices.status !== 200) throw new Error(`SOAP pricelists_Update answered ${prices.status}: ${prices.text.slice(0, 300)}`);
  const xml = `<products>${batch.map((p) => `<product>${entityToXml('Product', p)}</product>`).join('')}</products>`;
  const started = Date.now();
  const soap = await postSoap(endpoints, 'products_Update', xml);
  const ackMs = Date.now() - started;
  if (soap.status !== 200) throw new Error(`SOAP products_Update answered ${soap.status}: ${soap.text.slice(0, 300)}`);
  const acked = Date.now();
  for (;;) {
    const found = await checkoutCall(endpoints, 'POST', '/products', { body: { search: word, limit: 1 } });
    if (found.body['productCount'] >= variants) break;
    if (Date.now() - acked > 300_000)
      throw new Error(`batch ${word}: ${found.body['productCount']} of ${variants} variants searchable after 300 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const searchableAt = Date.now();
  return { ackMs, searchableMs: searchableAt - acked, variants, sentAt: started, ackAt: acked, searchableAt };
}

/**
 * What a batch of generated products needs beside its prices, sent through SOAP as an ERP would: the
 * demo markets, the warehouses and the size tables. A small batch after it (not measured) shows they
 * were applied, and warms the servers.
 */
export async function soapCatalogSetup(endpoints: Endpoints): Promise<void> {
  const { markets, warehouses, sizes } = generateCatalog({ products: 1, brands: 20, leafCategories: 50 });
  for (const [operation, list, item, type, entities] of [
    ['markets_Update', 'markets', 'market', 'Market', markets],
    ['warehouses_Update', 'warehouses', 'warehouse', 'Warehouse', warehouses],
    ['sizes_Update', 'sizes', 'size', 'Size', sizes],
  ] as const) {
    const xml = `<${list}>${(entities as unknown[]).map((e) => `<${item}>${entityToXml(type, e)}</${item}>`).join('')}</${list}>`;
    const answer = await postSoap(endpoints, operation, xml);
    if (answer.status !== 200) throw new Error(`SOAP ${operation} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  await soapBatchRound(endpoints, 20, 1);
}
