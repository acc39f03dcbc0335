export * from './selection';
export * from './selection.repository';
export * from './cart.errors';
export * from './cart.use-cases';
