export * from './compactor.js';
