export * from './checkout.routes';
export * from './session.adapter';
