export * from './db.port';
export * from './db-engine';
export * from './migrate';
export * from './contention';
export * from './db-instruments';
