export * from './checkout.routes';
