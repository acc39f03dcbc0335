export * from './order.dto';
export * from './order.events';
export * from './order.http-client';
