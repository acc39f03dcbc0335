export * from './http-app';
export * from './serve';
export * from './run-service';
export type { ReadinessCheck } from './health.middleware';
export { READINESS_TIMEOUT_MS } from './health.middleware';
export { markShuttingDown, isShuttingDown } from './app-state';
export * from './http-service';
export * from './db-service';
export * from './closers';
