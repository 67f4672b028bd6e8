/**
 * Replay: rebuilds read models from position 0 into a fresh database beside the live one, with the
 * same projections and a ProjectionRunner of their own, then either switches the live read models
 * over to the rebuilt ones in one transaction, or (verify) compares the two and reports every
 * difference. The log is only read.
 *
 * The switch is safe while a server keeps serving on the same views database:
 * - the rebuilt tables are first copied in beside the live ones in short transactions; the switch
 *   itself is one BEGIN IMMEDIATE transaction, so readers see the old read models or the new ones,
 *   never a mix, and the server's runner (which takes the same lock for every batch and re-reads
 *   the checkpoints inside it) waits for it, briefly (see switchOver);
 * - inside it, events appended since the rebuild finished are applied too and the checkpoints are set
 *   to the head of the log, which is at or past anything the server's runner had applied, so the
 *   server skips what the rebuild already holds and applies only what comes after: nothing twice,
 *   nothing lost.
 *
 * On the embedded store the rebuild reads the log in a thread of its own (log-reader.ts), a page
 * ahead of this one, which applies: the reads and their decoding are a large share of a replay.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import type { RecordedEvent } from '../domain/event.ts'
import type { EventStore } from '../eventstore/event-store.port.ts'
import { upcast } from '../domain/upcasters.ts'
import type { Projection } from '../read-models/projection.ts'
import { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { ViewsDatabase } from '../read-models/views-database.ts'
import { diffTable, digestTables, schemaOf, type TableDifference, type TableDigest } from './read-model-tables.ts'
import { embeddedLogFile, readAhead, type ReadPage } from '../eventstore/sqlite/index.ts'

const DEFAULT_BATCH = 1000
const READER_THREAD_MIN_EVENTS = 20_000

export interface ReplayProgress {
  /** Events read and applied so far. */
  readonly events: number
  /** Position reached. */
  readonly position: number
  /** The head of the log when the replay started (the bar's 100 %). */
  readonly head: number
  readonly elapsedMs: number
}

export interface ReplayOptions {
  readonly store: EventStore
  /** The live views database (the server's read models). */
  readonly live: ViewsDatabase
  /** Where the rebuilt database is written (beside the live one); removed afterwards. */
  readonly scratchPath: string
  readonly projections: readonly Projection[]
  /** `switch`: replace the live read models; `verify`: compare only. */
  readonly mode: 'switch' | 'verify'
  readonly batchSize?: number
  readonly onProgress?: (progress: ReplayProgress) => void
  /** Keep the rebuilt database file (tests, benchmarks). */
  readonly keepScratch?: boolean
  /**
   * Read an embedded log in a thread of its own while this one applies (see log-reader.ts). By
   * default, when there are at least READER_THREAD_MIN_EVENTS to read: below that, starting the
   * thread costs more than it saves.
   */
  readonly readerThread?: boolean
}

export interface ReplayResult {
  readonly mode: 'switch' | 'verify'
  readonly projections: ReadonlyArray<{ readonly name: string; readonly version: number }>
  /** Events replayed from position 0 into the rebuilt read models. */
  readonly events: number
  readonly rebuildMs: number
  readonly eventsPerSecond: number
  /** Position the rebuilt read models reached before the switch or comparison. */
  readonly rebuiltTo: number
  /** SHA-256 of the rebuilt read models at `rebuiltTo` (same log, same digest). */
  readonly digest: string
  readonly tables: readonly TableDigest[]
  /** switch: position of the read models after the switch, the events applied during it and how long the lock was held. */
  readonly switchedTo?: number
  readonly appliedDuringSwitch?: number
  readonly switchMs?: number
  /** verify: the position compared at, and every difference found (none: identical). */
  readonly comparedAt?: number
  readonly differences?: readonly TableDifference[]
}

export function projectionTables(projections: readonly Projection[]): string[] {
  return projections.flatMap((p) => p.tables)
}

/**
 * A scratch views database: disposable, so no journal and no fsync. While the rebuild writes it, no
 * other connection opens it, so it holds its lock throughout (its transactions skip the
 * locking and cache checks each would make; released by releaseScratch). Pages of 8 KB make the
 * secondary index builds and the writes cheaper; the live read models keep their own page size
 * (the switch copies rows, not pages).
 */
function openScratch(file: string): ViewsDatabase {
  removeDatabaseFiles(file)
  const db = new Database(file)
  db.pragma('page_size = 8192')
  db.pragma('locking_mode = EXCLUSIVE')
  db.pragma('journal_mode = OFF')
  db.pragma('synchronous = OFF')
  db.pragma('cache_size = -32768')
  db.exec('CREATE TABLE IF NOT EXISTS projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, position INTEGER NOT NULL)')
  return db
}

/** Lets other connections in (the switch and the comparison attach the scratch database): the lock goes with the next read. */
function releaseScratch(db: ViewsDatabase): void {
  db.pragma('locking_mode = NORMAL')
  db.prepare('SELECT count(*) FROM sqlite_master').get()
}

export function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true })
}

/**
 * Drops the projections' secondary indexes from a scratch database and returns the SQL that makes
 * them again: building an index once over the finished rows is several times cheaper than keeping it
 * up to date through a million inserts and updates (apply finds rows by primary key only).
 */
function withoutSecondaryIndexes(db: ViewsDatabase): string[] {
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as Array<{ name: string; sql: string }>
  for (const index of indexes) db.exec(`DROP INDEX "${index.name.replaceAll('"', '""')}"`)
  return indexes.map((index) => index.sql)
}

/** Reads events after `from` up to `until` (inclusive; undefined: the end), a page at a time. */
async function* eventsAfter(store: EventStore, from: number, until: number | undefined, pageSize: number): AsyncGenerator<RecordedEvent[]> {
  let position = from
  for (;;) {
    if (until !== undefined && position >= until) return
    let page = await store.readAll({ fromPosition: position + 1, limit: pageSize })
    if (until !== undefined) page = page.filter((event) => event.position <= until)
    const last = page[page.length - 1]
    if (last === undefined) return
    yield page
    position = last.position
  }
}

/**
 * The rebuild's pages: up to the head as it was when the rebuild started, from a reader thread when
 * the log is a file (events of types no projection reads are left out there); then, and for any
 * other store, through the store, up to `until` or to whatever the log holds by then.
 */
async function* rebuildPages(options: ReplayOptions, head: number, until: number | undefined): AsyncGenerator<ReadPage> {
  const pageSize = options.batchSize ?? DEFAULT_BATCH
  const file = embeddedLogFile(options.store)
  const ahead = Math.min(head, until ?? head)
  let position = 0
  if (file !== undefined && (options.readerThread ?? ahead >= READER_THREAD_MIN_EVENTS)) {
    const types = [...new Set(options.projections.flatMap((p) => p.handles))]
    for await (const page of readAhead({ path: file, after: 0, until: ahead, pageSize, types })) {
      yield page
      position = page.last
    }
  }
  for await (const events of eventsAfter(options.store, position, until, pageSize)) {
    yield { events, count: events.length, last: (events[events.length - 1] as RecordedEvent).position }
  }
}

interface Rebuilt {
  readonly db: ViewsDatabase
  readonly position: number
  readonly events: number
  readonly ms: number
}

/** Replays the log from position 0 (up to `until`) into a fresh database through a ProjectionRunner of its own. */
async function rebuild(options: ReplayOptions, until: number | undefined): Promise<Rebuilt> {
  const started = performance.now()
  const db = openScratch(options.scratchPath)
  try {
    const runner = new ProjectionRunner(options.store, db, options.projections)
    const indexes = withoutSecondaryIndexes(db)
    const head = await options.store.headPosition()
    let position = 0
    let events = 0
    for await (const page of rebuildPages(options, head, until)) {
      runner.applyBatch(page.events, page.last)
      position = page.last
      events += page.count
      options.onProgress?.({ events, position, head: Math.max(head, position), elapsedMs: performance.now() - started })
    }
    for (const sql of indexes) db.exec(sql)
    releaseScratch(db)
    return { db, position, events, ms: performance.now() - started }
  } catch (error) {
    db.close()
    throw error
  }
}

function applyTo(db: ViewsDatabase, projections: readonly Projection[], events: readonly RecordedEvent[], after: ReadonlyMap<string, number>, upTo: ReadonlyMap<string, number>): void {
  for (const recorded of events) {
    const event = upcast(recorded)
    for (const projection of projections) {
      if (event.position <= (after.get(projection.name) ?? 0) || event.position > (upTo.get(projection.name) ?? Number.POSITIVE_INFINITY)) continue
      if (projection.handles.includes(event.type)) projection.apply(db, event)
    }
  }
}

const upsertCheckpoint = (schema: 'main' | '') =>
  `INSERT INTO ${schema === '' ? '' : `${schema}.`}projection_checkpoints (name, version, position) VALUES (?, ?, ?)
   ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position`

/** The name a rebuilt table has in the live database until the switch. */
export function shadowName(table: string): string {
  return `${table}__replay`
}

const COPY_CHUNK = 10_000
const CREATE_TABLE = /^(CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?)(?:"[^"]+"|[^\s(]+)/i
const INDEX_ON = /^(CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:"[^"]+"|\S+)\s+ON\s+)(?:"[^"]+"|[^\s(]+)/i
const INDEX_NAME = /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?("[^"]+"|\S+)/i

/** Runs `work` in its own short write transaction on the live database. */
function briefly<T>(live: ViewsDatabase, work: () => T): T {
  live.exec('BEGIN IMMEDIATE')
  try {
    const result = work()
    live.exec('COMMIT')
    return result
  } catch (error) {
    if (live.inTransaction) live.exec('ROLLBACK')
    throw error
  }
}

/** Removes shadow tables (of an interrupted replay too) and puts back any index the live tables lost on the way. */
function abandonShadows(live: ViewsDatabase, projections: readonly Projection[]): void {
  briefly(live, () => {
    for (const table of projectionTables(projections)) live.exec(`DROP TABLE IF EXISTS main."${shadowName(table)}"`)
    for (const projection of projections) {
      try {
        projection.setup(live)
      } catch {
        // A live table of another shape: its next replay replaces it whole.
      }
    }
  })
}

/**
 * Replaces the live tables with the rebuilt ones and brings them to the head of the log.
 *
 * Copying a large read model takes seconds, and while a transaction holds the views database the
 * server's runner waits for it (up to its busy timeout). So the work is done in short transactions
 * first, and the switch itself stays short:
 * 1. each rebuilt table is copied beside its live one, as a shadow table, a chunk per transaction;
 * 2. each secondary index moves to its shadow table, one per transaction (the live table does
 *    without it for a moment: slower, never wrong; index names stay those the projection gives them);
 * 3. one transaction drops the live tables, renames the shadows into their place, applies the events
 *    appended since the rebuild and sets the checkpoints: readers see the old read models or the
 *    new ones, never a mix.
 */
async function switchOver(options: ReplayOptions, rebuiltTo: number): Promise<{ position: number; applied: number; ms: number }> {
  const { live, projections, store } = options
  const tables = projectionTables(projections)
  live.prepare('ATTACH DATABASE ? AS rebuilt').run(options.scratchPath)
  try {
    abandonShadows(live, projections)
    for (const table of tables) {
      const [create, ...indexes] = schemaOf(live, 'rebuilt', table)
      if (create === undefined || !CREATE_TABLE.test(create)) throw new Error(`rebuilt read model has no table ${table}`)
      const shadow = shadowName(table)
      briefly(live, () => live.exec(create.replace(CREATE_TABLE, `$1"${shadow}"`)))
      const last = (live.prepare(`SELECT max(rowid) FROM rebuilt."${table}"`).pluck().get() as number | null) ?? 0
      const copy = live.prepare(`INSERT INTO main."${shadow}" SELECT * FROM rebuilt."${table}" WHERE rowid > ? AND rowid <= ? ORDER BY rowid`)
      for (let from = 0; from < last; from += COPY_CHUNK) briefly(live, () => copy.run(from, from + COPY_CHUNK))
      for (const index of indexes) {
        const name = INDEX_NAME.exec(index)?.[1]
        if (name === undefined || !INDEX_ON.test(index)) throw new Error(`cannot read the rebuilt index: ${index}`)
        briefly(live, () => {
          live.exec(`DROP INDEX IF EXISTS main.${name}`)
          live.exec(index.replace(INDEX_ON, `$1"${shadow}"`))
        })
      }
    }

    const started = performance.now()
    live.exec('BEGIN IMMEDIATE')
    for (const table of tables) {
      live.exec(`DROP TABLE IF EXISTS main."${table}"`)
      live.exec(`ALTER TABLE main."${shadowName(table)}" RENAME TO "${table}"`)
    }
    // Events appended while the rebuild ran (the server may have applied them to the old tables).
    let position = rebuiltTo
    let applied = 0
    const from = new Map(projections.map((p) => [p.name, rebuiltTo]))
    for await (const page of eventsAfter(store, rebuiltTo, undefined, options.batchSize ?? DEFAULT_BATCH)) {
      applyTo(live, projections, page, from, new Map())
      position = (page[page.length - 1] as RecordedEvent).position
      applied += page.length
    }
    const checkpoint = live.prepare(upsertCheckpoint('main'))
    for (const projection of projections) checkpoint.run(projection.name, projection.version, position)
    live.exec('COMMIT')
    return { position, applied, ms: performance.now() - started }
  } catch (error) {
    if (live.inTransaction) live.exec('ROLLBACK')
    abandonShadows(live, projections)
    throw error
  } finally {
    live.exec('DETACH DATABASE rebuilt')
  }
}

interface LiveCheckpoint {
  readonly version: number
  readonly position: number
}

function liveCheckpoints(live: ViewsDatabase, projections: readonly Projection[]): Map<string, LiveCheckpoint | undefined> {
  const read = live.prepare('SELECT version, position FROM main.projection_checkpoints WHERE name = ?')
  return new Map(projections.map((p) => [p.name, read.get(p.name) as LiveCheckpoint | undefined]))
}

/**
 * Compares the live read models with the rebuilt ones at the live checkpoints: inside one read
 * snapshot of the live database, the rebuilt one is brought to exactly the position each live read
 * model has applied, then both are compared table by table.
 */
async function compare(options: ReplayOptions, rebuilt: Rebuilt): Promise<{ comparedAt: number; differences: TableDifference[] }> {
  const { live, projections, store } = options
  live.prepare('ATTACH DATABASE ? AS rebuilt').run(options.scratchPath)
  try {
    live.exec('BEGIN')
    try {
      const checkpoints = liveCheckpoints(live, projections)
      const differences: TableDifference[] = []
      const targets = new Map<string, number>()
      for (const projection of projections) {
        const checkpoint = checkpoints.get(projection.name)
        if (checkpoint === undefined) {
          differences.push({ table: projection.tables.join(', '), message: `${projection.name}: no live read model (it has never run on these views)`, onlyLive: [], onlyRebuilt: [] })
        } else if (checkpoint.version !== projection.version) {
          differences.push({ table: projection.tables.join(', '), message: `${projection.name}: live read model is version ${checkpoint.version}, this build's is ${projection.version}`, onlyLive: [], onlyRebuilt: [] })
        } else {
          targets.set(projection.name, checkpoint.position)
        }
      }
      // The server may have applied events since the rebuild stopped: bring the rebuilt models to the same positions.
      const furthest = Math.max(rebuilt.position, ...targets.values())
      const delta: RecordedEvent[] = []
      for await (const page of eventsAfter(store, rebuilt.position, furthest, options.batchSize ?? DEFAULT_BATCH)) delta.push(...page)
      const from = new Map(projections.map((p) => [p.name, rebuilt.position]))
      rebuilt.db.transaction(() => {
        applyTo(rebuilt.db, projections, delta, from, targets)
        const checkpoint = rebuilt.db.prepare(upsertCheckpoint(''))
        for (const projection of projections) checkpoint.run(projection.name, projection.version, targets.get(projection.name) ?? rebuilt.position)
      })()
      for (const projection of projections) {
        if (!targets.has(projection.name)) continue
        for (const table of projection.tables) {
          const difference = diffTable(live, table)
          if (difference) differences.push(difference)
        }
      }
      live.exec('COMMIT')
      return { comparedAt: targets.size > 0 ? Math.min(...targets.values()) : rebuilt.position, differences }
    } catch (error) {
      if (live.inTransaction) live.exec('ROLLBACK')
      throw error
    }
  } finally {
    live.exec('DETACH DATABASE rebuilt')
  }
}

/** The lowest position the live read models of this build's versions have applied (0 when none has run). */
function liveLowWater(live: ViewsDatabase, projections: readonly Projection[]): number {
  const checkpoints = liveCheckpoints(live, projections)
  const positions = projections.flatMap((p) => {
    const checkpoint = checkpoints.get(p.name)
    return checkpoint !== undefined && checkpoint.version === p.version ? [checkpoint.position] : []
  })
  return positions.length === 0 ? 0 : Math.min(...positions)
}

/** Rebuilds the projections from position 0, then switches the live read models over or compares them. */
export async function replay(options: ReplayOptions): Promise<ReplayResult> {
  // Verify compares at the live checkpoints, which only move forward: rebuild no further than the lowest.
  const until = options.mode === 'verify' ? liveLowWater(options.live, options.projections) : undefined
  let rebuilt: Rebuilt | undefined
  const closeScratch = () => {
    if (rebuilt?.db.open) rebuilt.db.close()
  }
  try {
    rebuilt = await rebuild(options, until)
    const { digest, tables } = digestTables(rebuilt.db, projectionTables(options.projections))
    const base = {
      mode: options.mode,
      projections: options.projections.map((p) => ({ name: p.name, version: p.version })),
      events: rebuilt.events,
      rebuildMs: rebuilt.ms,
      eventsPerSecond: rebuilt.ms > 0 ? (rebuilt.events / rebuilt.ms) * 1000 : 0,
      rebuiltTo: rebuilt.position,
      digest,
      tables,
    }
    if (options.mode === 'verify') {
      const { comparedAt, differences } = await compare(options, rebuilt)
      return { ...base, comparedAt, differences }
    }
    closeScratch()
    const switched = await switchOver(options, rebuilt.position)
    return { ...base, switchedTo: switched.position, appliedDuringSwitch: switched.applied, switchMs: switched.ms }
  } finally {
    closeScratch()
    if (!options.keepScratch) removeDatabaseFiles(options.scratchPath)
  }
}

/** Where the rebuilt database goes: beside the live one, named so a leftover is recognisable. */
export function scratchPathFor(viewsPath: string): string {
  const dir = path.dirname(path.resolve(viewsPath))
  return path.join(dir, `${path.basename(viewsPath)}.replay-${process.pid}-${Date.now()}.db`)
}
