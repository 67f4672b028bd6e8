/**
 * The log as the audit commands see it: opened through the event store port for reading only, and
 * scoped to one account by stream name. Nothing here appends; for the embedded store, a missing file
 * or a file that is not a Leadline log is refused rather than created or migrated.
 */
import fs from 'node:fs'
import Database from 'better-sqlite3'
import type { EventStore } from '../eventstore/event-store.port.ts'
import { openEventStore } from '../eventstore/open-event-store.ts'
import { SCHEMA_VERSION } from '../eventstore/sqlite/index.ts'
import type { RecordedEvent } from '../domain/event.ts'

/** The log named by LEADLINE_STORE cannot be read (missing, or not a Leadline log). */
export class LogUnavailableError extends Error {
  readonly type = 'log_unavailable' as const
  constructor(message: string) {
    super(message)
    this.name = 'LogUnavailableError'
  }
}

const SQLITE_MAGIC = 'SQLite format 3\0'
/** Offset of `PRAGMA user_version` in the SQLite file header (big-endian 32-bit). */
const USER_VERSION_OFFSET = 60

/** The schema version in an embedded log's file header; a read-only connection when the header cannot tell (a migration still in the WAL). */
function embeddedSchemaVersion(file: string): number {
  const header = Buffer.alloc(100)
  const fd = fs.openSync(file, 'r')
  try {
    fs.readSync(fd, header, 0, 100, 0)
  } finally {
    fs.closeSync(fd)
  }
  if (header.toString('latin1', 0, 16) !== SQLITE_MAGIC) throw new LogUnavailableError(`${file} is not an SQLite database`)
  const version = header.readUInt32BE(USER_VERSION_OFFSET)
  if (version === SCHEMA_VERSION) return version
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return db.pragma('user_version', { simple: true }) as number
  } finally {
    db.close()
  }
}

/** Opens the log for reading. Callers only use `readAll`, `readStream` and `headPosition`. */
export async function openLogForReading(url: string): Promise<EventStore> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length)
    if (!fs.existsSync(file)) throw new LogUnavailableError(`no event log at ${file} (LEADLINE_STORE)`)
    const version = embeddedSchemaVersion(file)
    if (version !== SCHEMA_VERSION) throw new LogUnavailableError(`${file} is not a Leadline event log (schema version ${version}, expected ${SCHEMA_VERSION})`)
  }
  return openEventStore(url)
}

/**
 * True when a stream belongs to the account: `{kind}-{accountId}` or `{kind}-{accountId}-{…}`
 * (`account-…`, `lead-…-{last10}`, `idempotency-…-{digest}`). Account ids never contain a dash.
 */
export function belongsToAccount(stream: string, accountId: string): boolean {
  const dash = stream.indexOf('-')
  if (dash <= 0) return false
  const rest = stream.slice(dash + 1)
  return rest === accountId || rest.startsWith(`${accountId}-`)
}

const PAGE = 2000

/** Every event of the log in position order, a page at a time (so a large log is never held at once). */
export async function* scanLog(store: EventStore, options: { fromPosition?: number; pageSize?: number } = {}): AsyncGenerator<RecordedEvent[]> {
  let from = options.fromPosition ?? 0
  const limit = options.pageSize ?? PAGE
  for (;;) {
    const page = await store.readAll({ fromPosition: from, limit })
    const last = page[page.length - 1]
    if (last === undefined) return
    yield page
    from = last.position + 1
  }
}
