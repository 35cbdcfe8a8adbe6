/** The adapter's old error name, kept for code written against it. */
import { AdapterOptionError } from '../shared/adapter-option-error.js';

/** @deprecated Use `AdapterOptionError` (every adapter throws it for a bad option). */
export const AdkAdapterError = AdapterOptionError;
/** @deprecated Use `AdapterOptionError`. */
export type AdkAdapterError = AdapterOptionError;
