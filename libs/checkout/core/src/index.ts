export * from './session';
export * from './checkout.errors';
export * from './envelope';
export * from './checkout.use-cases';
export * from './product.use-cases';
export * from './selection-pricing';
export * from './selection.use-cases';
export * from './login.use-cases';
