/**
 * The embedded event store: the one module of src/eventstore/sqlite that the rest of Leadline
 * imports. Everything else in this folder (the writer thread, the replay's reader thread, the
 * schema) is its inside.
 */
export { openSqliteEventStore, embeddedLogFile, afterCommitProgress, SCHEMA_VERSION, DuplicateEventIdError } from './sqlite-event-store.adapter.ts'
export type { SqliteEventStore, SqliteEventStoreOptions, SqliteEventStoreStats } from './sqlite-event-store.adapter.ts'
export { readAhead, type ReadPage } from './log-reader.ts'
export { copyDatabase, databaseInUse, moveDatabaseAside, placeDatabase, removeDatabase } from './sqlite-backup.ts'
export { isSqliteError } from './sqlite-schema.ts'
export type { AfterCommit, AfterCommitModule, AfterCommitProgress, CommittedLog, OpenAfterCommit } from './after-commit.ts'
