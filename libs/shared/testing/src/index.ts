export * from './engines';
export * from './mail-catcher';
