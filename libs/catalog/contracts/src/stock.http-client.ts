import { createInternalCaller } from '@commerce/shared-internal-client';
import type { CommitStockResult, HoldStockCommand, HoldStockResult, StockClient } from './stock.dto';

/** The catalog's stock API over internal HTTP (`/internal/catalog/stock`). */
export function createStockHttpClient(baseUrl: string): StockClient {
  const call = createInternalCaller(baseUrl, 'catalog');
  const hold = (id: string) => `/internal/catalog/stock/holds/${encodeURIComponent(id)}`;
  return {
    holdStock: async (command: HoldStockCommand) => (await call<HoldStockResult>('POST', '/internal/catalog/stock/holds', command))!,
    releaseStock: async (attemptId) => {
      await call('POST', `${hold(attemptId)}/release`);
    },
    commitStock: async (attemptId) => (await call<CommitStockResult>('POST', `${hold(attemptId)}/commit`)) ?? { committed: 0 },
  };
}
