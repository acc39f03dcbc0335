export * from './payment.dto';
export * from './payment.events';
export * from './payment.http-client';
