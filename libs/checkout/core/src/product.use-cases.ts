import { parseProductQuery, parseUriQuery } from '@commerce/catalog-contracts';
import { ValidationError } from '@commerce/shared-errors';
import { ProductNotFoundError, UriNotFoundError } from './checkout.errors';
import type { CheckoutDeps, SessionHandle } from './checkout.use-cases';
import { withToken, type RawJson } from './raw-json';

/**
 * `POST products`: the catalog's search in the session's market, pricelist and language. A catalog that
 * answers as text (another process) has its answer passed on inside the envelope as it came (decision 58).
 */
export async function searchProducts(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const parsed = parseProductQuery(body, deps.view.store.productFilterFields);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const context = deps.view.priceContext(handle.session);
  if (deps.catalog.searchProductsJson) return withToken(handle.token, await deps.catalog.searchProductsJson(parsed.value, context));
  const result = await deps.catalog.searchProducts(parsed.value, context);
  return { token: handle.token, products: result.products, productCount: result.productCount, filter: result.filter };
}

/** `GET products/{product}`: a product visible in the session's market, else 404 `{product: "not found"}`. */
export async function getProduct(deps: CheckoutDeps, handle: SessionHandle, productId: string) {
  const product = /^\d{1,15}$/.test(productId) ? await deps.catalog.getProduct(productId, deps.view.priceContext(handle.session)) : null;
  if (!product) throw new ProductNotFoundError();
  return { token: handle.token, product };
}

/**
 * `POST uri`: a product (`{found: "product", product}`) or a category with its products and filter
 * (`{found: "category", category, products, productCount, filter}`), only of the kinds named in `for`;
 * 404 `{uri: "not found"}` otherwise.
 */
export async function resolveUri(deps: CheckoutDeps, handle: SessionHandle, body: unknown): Promise<RawJson | object> {
  const parsed = parseUriQuery(body, deps.view.store.productFilterFields);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const context = deps.view.priceContext(handle.session);
  if (deps.catalog.resolveUriJson) {
    const json = await deps.catalog.resolveUriJson(parsed.value, context);
    if (json === null) throw new UriNotFoundError();
    return withToken(handle.token, json);
  }
  const found = await deps.catalog.resolveUri(parsed.value, context);
  if (!found) throw new UriNotFoundError();
  return { token: handle.token, ...found };
}

/** `GET categories`: the tree in the order the store configuration sets. */
export async function listCategories(deps: CheckoutDeps, handle: SessionHandle) {
  return { token: handle.token, categories: await deps.catalog.listCategories() };
}
