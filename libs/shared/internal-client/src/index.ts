export * from './internal-caller';
