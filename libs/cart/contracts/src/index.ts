export * from './cart.dto';
export * from './cart.http-client';
