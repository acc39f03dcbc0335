export * from './order.repository';
export * from './order.errors';
export * from './place-order.use-cases';
export * from './checkout-saga';
export * from './order-queries.use-cases';
export * from './apply-order-upsert.use-cases';
