import { DomainError } from '@commerce/shared-errors';
import { createInternalCallers } from '@commerce/shared-internal-client';
import type { CatalogClient, CategoryDto, ItemInfoDto, PriceContext, PricelistDto, ProductListDto, UriResultDto } from './catalog.dto';
import { productOffWire, type ProductOnWire } from './item-external-ids';

const contextQuery = (context: PriceContext): string => {
  const params = new URLSearchParams(Object.entries(context).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const s = params.toString();
  return s ? `?${s}` : '';
};

/** The catalog's internal HTTP API (`createCatalogInternalRouter`), for a deployment where the caller runs in another process. */
export function createCatalogHttpClient(baseUrl: string): CatalogClient {
  const { json: call, bytes } = createInternalCallers(baseUrl, 'catalog');
  const unavailable = () => new DomainError('CATALOG.REMOTE_ERROR', 'unavailable', { catalog: `no catalog API at ${baseUrl}` });
  return {
    searchProducts: async (query, context) => {
      const list = await call<ProductListDto>('POST', '/internal/catalog/products/search', { query, context });
      if (!list) throw unavailable();
      return list;
    },
    searchProductsJson: async (query, context) => {
      const list = await bytes('POST', '/internal/catalog/products/search', { query, context });
      if (list === null) throw unavailable();
      return list;
    },
    getProduct: async (id, context) => {
      const answer = await call<ProductOnWire>('GET', `/internal/catalog/products/${encodeURIComponent(id)}${contextQuery(context)}`);
      return answer && productOffWire(answer);
    },
    getItem: (id, context) => call<ItemInfoDto>('GET', `/internal/catalog/items/${encodeURIComponent(id)}${contextQuery(context)}`),
    getItems: async (ids, context) => {
      if (ids.length === 0) return [];
      const found = await call<{ items: ItemInfoDto[] }>('POST', '/internal/catalog/items', { items: ids, context });
      if (!found) throw unavailable();
      return found.items;
    },
    listCategories: async () => {
      const list = await call<{ categories: CategoryDto[] }>('GET', '/internal/catalog/categories');
      if (!list) throw unavailable();
      return list.categories;
    },
    // A 404 without a code is "nothing found"; the router answers so for a URI that leads nowhere.
    resolveUri: (query, context) => call<UriResultDto>('POST', '/internal/catalog/uri', { query, context }),
    resolveUriJson: (query, context) => bytes('POST', '/internal/catalog/uri', { query, context }),
    getPricelist: (id) => call<PricelistDto>('GET', `/internal/catalog/pricelists/${encodeURIComponent(id)}`),
  };
}
