// The embedded search engine's side of a SOAP batch (issue 8's "searchable"): the CPU of `upsert` for the
// search documents of BENCH_SOAP_BATCH (1,000) generated products (3 variations × 5 sizes on average, the
// SOAP batch bench's generator), into an index already holding SEARCH_BASE (2) such batches, then the same
// documents again (a batch that renames nothing: every document replaced). Median of SEARCH_ROUNDS (7).
//
//   npx tsx tools/bench/search-upsert.ts
//
// The documents are made from the generated products as `toSearchDoc` makes them (names, brand, category
// path, SKU, sizes); read the ratio of two runs of this script on one machine, not the absolute figure.
import { cpus } from 'node:os';
import { MiniSearchIndex } from '@commerce/catalog-adapters';
import { SoapProductSchema } from '@commerce/erp-contracts';
import type { SearchDoc } from '@commerce/catalog-core';
import { generateCatalog } from '../demo/catalog-generator';

const batchSize = Number(process.env['BENCH_SOAP_BATCH'] ?? 1000);
const base = Number(process.env['SEARCH_BASE'] ?? 2);
const rounds = Number(process.env['SEARCH_ROUNDS'] ?? 7);

function docsOf(seed: number, firstId: number): SearchDoc[] {
  const products = SoapProductSchema.array().parse(generateCatalog({ products: batchSize, brands: 20, leafCategories: 50, seed }).products);
  const docs: SearchDoc[] = [];
  let id = firstId;
  for (const [p, product] of products.entries()) {
    for (const [v, variation] of (product.variations ?? []).entries()) {
      const sizes = (variation.sizes ?? []).map((s) => s.description ?? s.id);
      docs.push({
        id: String(id),
        productId: id++,
        name: product.description ?? product.id,
        variantName: variation.description ?? '',
        brandName: product.brand?.description ?? '',
        collectionName: product.collection?.description ?? '',
        categoryNames: [product.folder?.description ?? '', 'Clothing', 'Outlet'],
        sku: `${product.sku ?? ''}${variation.sku ?? ''}`,
        uri: `${product.id}-${variation.id}`.toLowerCase(),
        brand: product.brand?.id ?? null,
        collection: product.collection?.id ?? null,
        categories: [product.folder?.id ?? ''],
        categoryTree: [product.folder?.id ?? '', 'C-OUTLET'],
        inStock: true,
        createdAt: 1_700_000_000_000 + p,
        modifiedAt: 1_700_000_000_000 + p,
        markets: ['*'],
        pricelists: ['SEK', 'EUR'],
        prices: { SEK: 499 + p, EUR: 49 + p },
        swatchDesc: (variation.description ?? '').trim(),
        itemNames: sizes,
        availableItemNames: sizes,
        collectionUri: '',
        categoryItemSort: p * 10 + v,
        primaryVariant: v === 0,
        platformProduct: p + firstId,
        countryOrigin: product.countryoforigin ?? '',
        harmCode: product.harmcode?.id ?? '',
        stockUnit: '',
      });
    }
  }
  return docs;
}

async function main() {
  const index = new MiniSearchIndex();
  for (let b = 0; b < base; b++) await index.upsert(docsOf(100 + b, 1 + b * 10 * batchSize));
  const batch = docsOf(7000, 1 + base * 10 * batchSize);
  const cpuMs = async (docs: SearchDoc[]) => {
    const before = process.cpuUsage();
    await index.upsert(docs);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  const first = await cpuMs(batch);
  const again: number[] = [];
  for (let r = 0; r < rounds; r++) again.push(await cpuMs(batch));
  again.sort((a, b) => a - b);
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
  console.log(`${batch.length} documents of ${batchSize} products, over ${base * batchSize} products already indexed`);
  console.log(`| upsert | CPU ms |`);
  console.log(`|---|---|`);
  console.log(`| new documents | ${first.toFixed(0)} |`);
  console.log(`| the same again (median of ${rounds}, min ${again[0]!.toFixed(0)}) | ${again[Math.floor(rounds / 2)]!.toFixed(0)} |`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
