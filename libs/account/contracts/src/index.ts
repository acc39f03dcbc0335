export * from './account.dto';
export * from './account.http-client';
export * from './account.events';
