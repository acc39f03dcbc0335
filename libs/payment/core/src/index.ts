export * from './payment.errors';
export * from './payment-provider.port';
export * from './attempt.repository';
export * from './payment.use-cases';
