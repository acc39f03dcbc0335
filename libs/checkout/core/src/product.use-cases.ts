import { parseProductQuery, parseUriQuery } from '@commerce/catalog-contracts';
import { ValidationError } from '@commerce/shared-errors';
import { ProductNotFoundError, UriNotFoundError } from './checkout.errors';
import type { CheckoutDeps, SessionHandle } from './checkout.use-cases';

/** `POST products`: the catalog's search in the session's market, pricelist and language. */
export async function searchProducts(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const parsed = parseProductQuery(body, deps.view.store.productFilterFields);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const result = await deps.catalog.searchProducts(parsed.value, deps.view.priceContext(handle.session));
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
export async function resolveUri(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const parsed = parseUriQuery(body, deps.view.store.productFilterFields);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const found = await deps.catalog.resolveUri(parsed.value, deps.view.priceContext(handle.session));
  if (!found) throw new UriNotFoundError();
  return { token: handle.token, ...found };
}

/** `GET categories`: the tree in the order the store configuration sets. */
export async function listCategories(deps: CheckoutDeps, handle: SessionHandle) {
  return { token: handle.token, categories: await deps.catalog.listCategories() };
}
