export * from './order.migrations';
export * from './order.knex-repository';
export * from './order.internal-routes';
export * from './order.service';
export * from './consumers/upsert-received.consumer';
export * from './consumers/payment-authorized.consumer';
export * from './order.env';
export * from './order.module';
