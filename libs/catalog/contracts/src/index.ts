export * from './catalog.dto';
export * from './product-query';
export * from './catalog.events';
export * from './catalog.http-client';
export * from './stock.dto';
export * from './stock.http-client';
export * from './item-id';
export * from './item-external-ids';
