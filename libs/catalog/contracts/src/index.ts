export * from './catalog.dto';
export * from './catalog.events';
export * from './catalog.http-client';
