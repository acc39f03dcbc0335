import { isItemId, itemIdOf, itemIdParts } from './item-id';

describe('item ids', () => {
  it('splits an item id into its product and size, and joins them back', () => {
    expect(itemIdParts('12-345')).toEqual({ product: '12', size: '345' });
    expect(itemIdOf(12, 345)).toBe('12-345');
    expect(itemIdParts(itemIdOf('7', '1'))).toEqual({ product: '7', size: '1' });
  });

  it('takes the product before the first dash; an id without one is all product', () => {
    expect(itemIdParts('CAFE-BRN-S')).toEqual({ product: 'CAFE', size: 'BRN-S' });
    expect(itemIdParts('12')).toEqual({ product: '12', size: '' });
  });

  it("knows the spec's form: two decimal ids of up to 15 digits", () => {
    expect(['1-1', '123456789012345-1'].map(isItemId)).toEqual([true, true]);
    expect(['1', '1-', '-1', '1-1-1', 'a-1', '1234567890123456-1', ' 1-1'].map(isItemId)).toEqual(Array(7).fill(false));
  });
});
