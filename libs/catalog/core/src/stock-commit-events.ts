import { ProductUpserted, STOCK_COMMITS_KEY, StockCommitted } from '@commerce/catalog-contracts';
import type { CatalogEvent } from './catalog.repository';

/** An item an order's stock commit lowered, before and after, as the commit's transaction saw it. */
export interface CommittedItem {
  productId: number;
  /** The product's ERP id. */
  externalId: string;
  /** The ERP's ids of the item's variation and size. */
  variation: string;
  size: string;
  sku: string;
  ean: string;
  /** The stock in the ERP's units before and after the commit. */
  stockBefore: number;
  stockAfter: number;
  /** How many of the ERP's units one item takes (decision 22). */
  divisor: number;
  /** The ERP's preorder flag: the item can be bought whatever its stock. */
  preorder: boolean;
}

/** Whether the shop may show the item differently after the commit: it sold out (its last whole item went). */
const soldOut = (item: CommittedItem): boolean => {
  const divisor = Math.max(1, item.divisor);
  return (
    !item.preorder && Math.floor(Math.max(0, item.stockBefore) / divisor) > 0 && Math.floor(Math.max(0, item.stockAfter) / divisor) === 0
  );
};

/**
 * The events of an order's stock commit: one `StockCommitted` with every product's items and their new quantities
 * (the SOAP feed's stock events), in the order given, and a product's `ProductUpserted` before it only when what
 * the shop shows of the product may have changed, i.e. one of its items sold out (the listing's `inStock` and item
 * `stock`, the search index's `inStock` and available sizes; a commit never raises a stock). Otherwise nothing a
 * visitor sees moved and nobody need re-read or re-index the product: its entry then says `republished: false`,
 * and the SOAP feed takes the product-level `stock` event the `ProductUpserted` would have given from it, so the
 * feed shows the same events either way.
 */
export function stockCommitEvents(items: CommittedItem[]): CatalogEvent[] {
  const products = new Map<number, { externalId: string; items: CommittedItem[] }>();
  for (const item of items) {
    const product = products.get(item.productId) ?? { externalId: item.externalId, items: [] };
    product.items.push(item);
    products.set(item.productId, product);
  }
  if (products.size === 0) return [];
  const upserted: CatalogEvent[] = [];
  const changes = [...products].map(([id, p]) => {
    const productId = String(id);
    const republished = p.items.some(soldOut);
    if (republished) upserted.push(ProductUpserted.create(productId, { productId, externalId: p.externalId }));
    return {
      productId,
      externalId: p.externalId,
      items: p.items.map((i) => ({ variation: i.variation, size: i.size, sku: i.sku, ean: i.ean, qty: i.stockAfter })),
      ...(republished ? {} : { republished: false }),
    };
  });
  return [...upserted, StockCommitted.create(STOCK_COMMITS_KEY, { products: changes })];
}
