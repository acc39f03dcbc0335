import {
  BackInStockSubscription,
  NewsletterSubscription,
  type BackInStockSubscriptionDto,
  type NewsletterSubscriptionDto,
} from '@commerce/account-contracts';
import { itemIdParts } from '@commerce/catalog-contracts';
import type { AccountDeps } from './account.use-cases';
import { parse } from './account.validation';

const now = (deps: Pick<AccountDeps, 'now'>) => (deps.now ?? (() => new Date()))();

/** `POST newsletter-subscription`: idempotent by e-mail; the time of the first consent is what is kept. */
export async function subscribeNewsletter(deps: AccountDeps, subscription: NewsletterSubscriptionDto): Promise<void> {
  const s = parse(NewsletterSubscription, subscription);
  await deps.subscriptions.subscribeNewsletter({
    email: s.email,
    ...(s.country ? { country: s.country } : {}),
    ...(s.language ? { language: s.language } : {}),
    consentedAt: now(deps),
  });
}

/** `POST back-in-stock-subscription`: kept until the item's stock rises above zero (backInStockNotifier). */
export async function subscribeBackInStock(deps: AccountDeps, subscription: BackInStockSubscriptionDto): Promise<void> {
  const s = parse(BackInStockSubscription, subscription);
  await deps.subscriptions.subscribeBackInStock({ email: s.email, item: s.item, product: itemIdParts(s.item).product, at: now(deps) });
}

export interface BackInStockDeps extends Pick<AccountDeps, 'subscriptions' | 'mailer' | 'now'> {
  /** The item's stock now (the catalog's answer, over all warehouses); null when the catalog does not know it. */
  stockOf(item: string): Promise<number | null>;
}

/**
 * A product's stock may have changed (the catalog's event): each item of it someone waits for is asked
 * about, and when its stock is above zero its open requests are claimed and mailed, once each. A mail that
 * fails is released, so the next event (or the bus's redelivery, since this throws) tries again.
 */
export async function notifyBackInStock(deps: BackInStockDeps, product: string): Promise<number> {
  let sent = 0;
  for (const item of await deps.subscriptions.waitedItems(product)) {
    const stock = await deps.stockOf(item);
    if (stock === null || stock <= 0) continue;
    const claimed = await deps.subscriptions.claimBackInStock(item, now(deps));
    const failed: string[] = [];
    for (const request of claimed) {
      try {
        await deps.mailer.send({
          to: request.email,
          subject: 'Back in stock',
          text: `Good news: the item ${item} you asked about is back in stock.\n\nThis is the only mail you get about it.`,
        });
        sent++;
      } catch {
        failed.push(request.id);
      }
    }
    if (failed.length > 0) {
      await deps.subscriptions.releaseBackInStock(failed);
      throw new Error(`back in stock: ${failed.length} mail(s) for item ${item} could not be sent`);
    }
  }
  return sent;
}
