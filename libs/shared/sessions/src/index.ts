export * from './session-store';
export * from './create-session-store';
export * from './memory-session-store';
export * from './redis-session-store';
export * from './session-token';
export * from './redis-instruments';
