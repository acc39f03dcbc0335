import { CatalogTopics, ProductUpserted, type CatalogClient } from '@commerce/catalog-contracts';
import { notifyBackInStock, type Mailer, type SubscriptionRepository } from '@commerce/account-core';
import type { EventEnvelope, SubscribeOptions } from '@commerce/shared-bus';
import type { Logger } from '@commerce/shared-logging';

export const ACCOUNT_BACK_IN_STOCK_GROUP = 'account-back-in-stock';

/**
 * Back-in-stock mails from the catalog's `ProductUpserted`, which the catalog publishes whenever what a
 * product shows may have changed, stock included; the event carries ids only, so the catalog is asked for
 * the stock of each item someone waits for. Claims make a redelivery harmless: a request is mailed once.
 */
export function backInStockConsumer(deps: {
  subscriptions: SubscriptionRepository;
  mailer: Mailer;
  catalog: Pick<CatalogClient, 'getItem'>;
  logger: Logger;
}): SubscribeOptions {
  return {
    groupId: ACCOUNT_BACK_IN_STOCK_GROUP,
    topics: [CatalogTopics.PRODUCT],
    handle: async (envelope: EventEnvelope) => {
      if (!ProductUpserted.matches(envelope)) return;
      const { productId } = ProductUpserted.parse(envelope).payload;
      const sent = await notifyBackInStock(
        {
          subscriptions: deps.subscriptions,
          mailer: deps.mailer,
          // No market or pricelist: the item's stock wherever it is sold.
          stockOf: async (item) => (await deps.catalog.getItem(item, {}))?.stock ?? null,
        },
        productId,
      );
      if (sent > 0) deps.logger.info({ productId, sent }, 'account: back-in-stock mails sent');
    },
  };
}
