export * from './order.repository';
export * from './order.errors';
export * from './place-order.use-case';
export * from './complete-paid-attempt.use-case';
export * from './order-queries.use-case';
export * from './apply-order-upsert.use-case';
