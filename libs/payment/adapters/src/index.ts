export * from './payment.service';
export * from './payment.migrations';
export * from './payment-providers';
export * from './providers/hmac-signature';
export * from './providers/hosted-test.provider';
export * from './providers/test-provider.settings';
export * from './providers/invoice-test.provider';
export * from './payment.env';
