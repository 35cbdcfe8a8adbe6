/**
 * Keys orrery writes into an event's `customMetadata`. They live in the core so that every
 * layer (importers that write them, the runtime and CLI that read them) agrees without one
 * outer layer importing another.
 */

/** Marks an event an importer made up (a call synthesized before an orphan result). */
export const IMPORT_REPAIR_KEY = 'orrery:importRepair';
/** Marks user text that carries an earlier compaction's summary (Claude Code). */
export const EARLIER_SUMMARY_KEY = 'orrery:earlierSummary';
