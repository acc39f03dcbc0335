import { ProductUpserted, StockCommitted } from '@commerce/catalog-contracts';
import { stockCommitEvents, type CommittedItem } from './stock-commit-events';

const item = (productId: number, sku: string, stockBefore: number, stockAfter: number): CommittedItem => ({
  productId,
  externalId: `P-${productId}`,
  variation: `V-${productId}`,
  size: `S-${sku}`,
  sku,
  ean: `E-${sku}`,
  stockBefore,
  stockAfter,
  divisor: 1,
  preorder: false,
});

describe('the events of an order’s stock commit', () => {
  it('one StockCommitted with every product in the order given; a ProductUpserted first for each product one of whose items sold out', () => {
    const events = stockCommitEvents([item(7, 'A', 5, 4), item(3, 'B', 1, 0), item(7, 'C', 2, 1), item(9, 'D', 3, 2)]);
    expect(events.map((e) => [e.type, e.key])).toEqual([
      ['ProductUpserted', '3'],
      ['StockCommitted', 'stock-commits'],
    ]);
    expect(ProductUpserted.parse(events[0]!).payload).toEqual({ productId: '3', externalId: 'P-3' });
    const committed = StockCommitted.parse(events[1]!).payload;
    expect(committed.products.map((p) => [p.productId, p.externalId, p.republished, p.items.map((i) => [i.sku, i.qty])])).toEqual([
      [
        '7',
        'P-7',
        false,
        [
          ['A', 4],
          ['C', 1],
        ],
      ],
      ['3', 'P-3', undefined, [['B', 0]]],
      ['9', 'P-9', false, [['D', 2]]],
    ]);
    expect(committed.products[1]).not.toHaveProperty('republished');
    expect(committed.products[0]!.items[0]).toEqual({ variation: 'V-7', size: 'S-A', sku: 'A', ean: 'E-A', qty: 4 });
  });

  it('nothing for nothing committed', () => {
    expect(stockCommitEvents([])).toEqual([]);
  });
});
