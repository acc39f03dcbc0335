import { Agent, request } from 'undici';
import { DomainError } from '@commerce/shared-errors';
import { currentRequestId, REQUEST_ID_HEADER } from '@commerce/shared-logging';
import type { CatalogClient, ItemInfoDto, PriceContext, ProductDto, ProductListDto } from './catalog.dto';

const contextQuery = (context: PriceContext): string => {
  const params = new URLSearchParams(Object.entries(context).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const s = params.toString();
  return s ? `?${s}` : '';
};

/** The catalog's internal HTTP API (`createCatalogInternalRouter`), for a deployment where the caller runs in another process. */
export function createCatalogHttpClient(baseUrl: string): CatalogClient {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T | null> => {
    const requestId = currentRequestId();
    const res = await request(new URL(path, baseUrl), {
      method,
      dispatcher: agent,
      headers: { 'content-type': 'application/json', ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    if (res.statusCode === 404) return null;
    let json: (T & { errors?: Record<string, string>; code?: string }) | undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.statusCode >= 400 || json === undefined) {
      throw new DomainError(
        json?.code ?? 'CATALOG.REMOTE_ERROR',
        res.statusCode === 400 ? 'invalid' : 'unavailable',
        json?.errors ?? { catalog: `answered ${res.statusCode}` },
      );
    }
    return json;
  };
  return {
    searchProducts: async (query, context) => {
      const list = await call<ProductListDto>('POST', '/internal/catalog/products/search', { query, context });
      if (!list) throw new DomainError('CATALOG.REMOTE_ERROR', 'unavailable', { catalog: `no catalog API at ${baseUrl}` });
      return list;
    },
    getProduct: (id, context) => call<ProductDto>('GET', `/internal/catalog/products/${encodeURIComponent(id)}${contextQuery(context)}`),
    getItem: (id, context) => call<ItemInfoDto>('GET', `/internal/catalog/items/${encodeURIComponent(id)}${contextQuery(context)}`),
  };
}
