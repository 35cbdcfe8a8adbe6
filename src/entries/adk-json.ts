/**
 * `orrery-runtime/adk-json`: sessions as ADK's JSON, in (snake_case or camelCase, orrery's own
 * fields in `customMetadata.orrery`) and out (only ADK's own compaction fields, which ADK for
 * Python accepts). docs/architecture.md#the-event-model.
 */

export type { AdkCasing } from '../events/adk-casing.js';
export {
  type AdkSessionImport,
  fromAdkSessionJson,
  type ImportedEvent,
} from '../events/adk-json.js';
export {
  type AdkDialect,
  type ToAdkSessionJsonOptions,
  toAdkEventJson,
  toAdkSessionJson,
} from '../events/adk-json-export.js';
