export * from './checkout.routes';
export * from './session.adapter';
export * from './selection.routes';
export * from './product-cache';
export * from './login.routes';
export * from './login-guard.adapter';
export * from './geoip';
export * from './payment.routes';
