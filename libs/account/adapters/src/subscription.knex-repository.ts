import { randomUUID } from 'node:crypto';
import type { Db } from '@commerce/shared-db';
import { emailKey, type SubscriptionRepository } from '@commerce/account-core';

export function createSubscriptionRepository(db: Db): SubscriptionRepository {
  return {
    async subscribeNewsletter(s) {
      const update: Record<string, unknown> = { email: s.email, updated_at: s.consentedAt };
      if (s.country) update['country'] = s.country;
      if (s.language) update['language'] = s.language;
      await db
        .table('newsletter_subscriptions')
        .insert({
          email_key: emailKey(s.email),
          email: s.email,
          country: s.country ?? null,
          language: s.language ?? null,
          consented_at: s.consentedAt,
          updated_at: s.consentedAt,
        })
        .onConflict('email_key')
        .merge(update);
    },
    async subscribeBackInStock(s) {
      await db
        .table('back_in_stock_subscriptions')
        .insert({ id: randomUUID(), email_key: emailKey(s.email), email: s.email, item: s.item, product: s.product, created_at: s.at })
        .onConflict(db.knex.raw('(email_key, item) where notified_at is null'))
        .ignore();
    },
    async waitedItems(product) {
      const rows = (await db
        .table('back_in_stock_subscriptions')
        .distinct('item')
        .where({ product })
        .whereNull('notified_at')
        .orderBy('item')) as { item: string }[];
      return rows.map((r) => r.item);
    },
    async claimBackInStock(item, at) {
      return (await db
        .table('back_in_stock_subscriptions')
        .where({ item })
        .whereNull('notified_at')
        .update({ notified_at: at })
        .returning(['id', 'email'])) as { id: string; email: string }[];
    },
    async releaseBackInStock(ids) {
      if (ids.length > 0) await db.table('back_in_stock_subscriptions').whereIn('id', ids).update({ notified_at: null });
    },
  };
}
