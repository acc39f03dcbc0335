import type { SoapProduct } from '@commerce/erp-contracts';

/** A SOAP product as backoffice-soap passes it on: two variations sharing sizes S/M/L. */
export function soapProduct(overrides: Partial<SoapProduct> = {}): SoapProduct {
  return {
    id: 'P-1',
    status: 'active',
    sku: 'CAFE',
    description: 'Café Sweater',
    folder: { id: 'F-KNIT', description: 'Knitwear' },
    brand: { id: 'B-NW', description: 'Nordwear' },
    collection: { id: 'C-AW', description: 'Autumn/Winter' },
    variations: [
      {
        id: 'V-BRN',
        description: 'Brown',
        sku: '-BRN',
        status: 'active',
        sizes: [
          { id: 'S-S', description: 'S', sku: 'CAFE-BRN-S', ean: '111', qty: '4' },
          {
            id: 'S-M',
            description: 'M',
            sku: 'CAFE-BRN-M',
            ean: '112',
            warehouseitems: [
              { id: 'W1', qty: '2' },
              { id: 'W2', qty: '3' },
            ],
          },
          { id: 'S-L', description: 'L', sku: 'CAFE-BRN-L', ean: '113', qty: '0' },
        ],
        displays: [{ categories: [{ id: 'F-NEW', description: 'New Arrivals' }], minimumorderamount: '1', orderdenominator: '1' }],
      },
      {
        id: 'V-OAT',
        description: 'Oat',
        sku: '-OAT',
        status: 'active',
        sizes: [
          { id: 'S-S', description: 'S', sku: 'CAFE-OAT-S', ean: '121', qty: '1' },
          { id: 'S-M', description: 'M', sku: 'CAFE-OAT-M', ean: '122', qty: '1' },
        ],
      },
    ],
    metadata: { storemeta: { shortdescription: 'Cosy', description: 'A cosy sweater' } },
    ...overrides,
  };
}
