import { parseInput } from '@commerce/shared-errors';
import { BackInStockBody, NewsletterBody } from '@commerce/checkout-contracts';
import { isItemId } from '@commerce/catalog-contracts';
import { ItemNotFoundError } from './checkout.errors';
import type { CheckoutDeps, SessionHandle } from './checkout.use-cases';
import { getSelection } from './selection.use-cases';

const parse = parseInput;

/** `POST newsletter-subscription` `{email, country?, language?}`: idempotent; answers the session's envelope. */
export async function subscribeNewsletter(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const { email, country, language } = parse(NewsletterBody, body);
  await deps.account.subscribeNewsletter({ email, ...(country ? { country } : {}), ...(language ? { language } : {}) });
  return getSelection(deps, handle);
}

/** `POST back-in-stock-subscription` `{email, item}`: an item the catalog has (else 404 `{item}`), mailed once when back. */
export async function subscribeBackInStock(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const { email, item } = parse(BackInStockBody, body);
  if (!isItemId(item) || !(await deps.catalog.getItem(item, {}))) throw new ItemNotFoundError();
  await deps.account.subscribeBackInStock({ email, item });
  return getSelection(deps, handle);
}
