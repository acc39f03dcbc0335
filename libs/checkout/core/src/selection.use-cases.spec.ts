import { readFileSync } from 'node:fs';
import { parseStoreConfig } from '@commerce/shared-config';
import { DomainError } from '@commerce/shared-errors';
import type { CartClient } from '@commerce/cart-contracts';
import type { OrderClient } from '@commerce/order-contracts';
import type { PaymentClient } from '@commerce/payment-contracts';
import type { AccountClient } from '@commerce/account-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import { StoreView } from './store-view';
import { getSelection } from './selection.use-cases';
import { oneLineSelection } from './testing/selection.fixture';
import type { CheckoutDeps } from './checkout.use-cases';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));

const selection = oneLineSelection();

const deps = (getProduct: CatalogClient['getProduct']): CheckoutDeps => ({
  sessions: {
    get: async () => null,
    set: async () => undefined,
    delete: async () => undefined,
    newToken: () => 't',
    selectionVersion: async () => 0,
    selectionChanged: async () => undefined,
  },
  catalog: { getProduct } as CatalogClient,
  cart: { getSelection: async () => selection } as unknown as CartClient,
  account: {} as AccountClient,
  orders: {} as OrderClient,
  payment: {} as PaymentClient,
  loginGuard: { blockedFor: async () => 0, failed: async () => undefined },
  view: new StoreView(store),
});
const handle = () => ({
  token: 't',
  isNew: false,
  stored: true,
  session: { selectionId: 'sel1', country: 'SE', state: null, language: 'sv', createdAt: '' },
});

describe('GET selection when the catalog does not answer', () => {
  it('still answers the selection, without the products it cannot get', async () => {
    const down = async () => {
      throw new DomainError('CATALOG.REMOTE_ERROR', 'unavailable', { catalog: 'unavailable (ECONNREFUSED)' });
    };
    const envelope = await getSelection(deps(down), handle());
    expect(envelope.selection.items.map((i) => i.item)).toEqual(['1-1']);
    expect(envelope.products).toEqual([]);
  });

  it('lets other failures through', async () => {
    const broken = async () => {
      throw new Error('bug');
    };
    await expect(getSelection(deps(broken), handle())).rejects.toThrow('bug');
  });
});
