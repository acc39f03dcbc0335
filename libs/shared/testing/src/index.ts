export * from './cleanup';
export * from './engines';
export * from './mail-catcher';
export * from './rows-read';
export * from './latency-proxy';
