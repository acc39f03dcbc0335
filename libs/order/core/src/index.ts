export * from './order.repository';
export * from './order.errors';
export * from './place-order.use-case';
export * from './checkout-saga';
export * from './order-queries.use-case';
export * from './apply-order-upsert.use-case';
