export * from './cart.migrations';
export * from './selection.knex-repository';
export * from './cart.internal-routes';
export * from './cart.service';
export * from './cart.module';
