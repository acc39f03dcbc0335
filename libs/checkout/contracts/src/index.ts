export * from './address';
export * from './openapi';
export * from './checkout-requests';
export * as checkoutAnswers from './checkout-answers';
