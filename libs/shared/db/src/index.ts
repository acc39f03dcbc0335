export * from './db.port';
