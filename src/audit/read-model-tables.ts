/**
 * Read models as data: their rows in a stable order (every column, like test/helpers/read-models.ts),
 * a digest of them, and the differences between a live read model and one rebuilt beside it.
 */
import { createHash } from 'node:crypto'
import type { Database } from 'better-sqlite3'

export type Schema = 'main' | 'rebuilt'

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

export function tableExists(db: Database, schema: Schema, table: string): boolean {
  return db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined
}

export function columnsOf(db: Database, schema: Schema, table: string): string[] {
  return (db.prepare(`PRAGMA ${schema}.table_info(${quoteIdent(table)})`).all() as Array<{ name: string }>).map((c) => c.name)
}

/** The table's schema: its CREATE statements (table first, then indexes by name). */
export function schemaOf(db: Database, schema: Schema, table: string): string[] {
  return db
    .prepare(`SELECT sql FROM ${schema}.sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type = 'table' DESC, name`)
    .pluck()
    .all(table) as string[]
}

/**
 * Every row in a stable order that does not depend on how the table was written: by its primary key
 * (read along its index, so nothing is sorted in memory), or by every column when it has none.
 */
function orderedSelect(db: Database, schema: Schema, table: string): string {
  const info = db.prepare(`PRAGMA ${schema}.table_info(${quoteIdent(table)})`).all() as Array<{ name: string; pk: number }>
  const columns = info.map((c) => quoteIdent(c.name))
  const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => quoteIdent(c.name))
  return `SELECT ${columns.join(', ')} FROM ${schema}.${quoteIdent(table)} ORDER BY ${(key.length > 0 ? key : columns).join(', ')}`
}

export interface TableDigest {
  readonly table: string
  readonly rows: number
}

/**
 * SHA-256 over every row of the tables, in table order and then in a stable row order (above): two
 * read models with the same digest hold the same data, byte for byte.
 */
export function digestTables(db: Database, tables: readonly string[], schema: Schema = 'main'): { digest: string; tables: TableDigest[] } {
  const hash = createHash('sha256')
  const counts: TableDigest[] = []
  for (const table of tables) {
    hash.update(`table ${table}\n`)
    let rows = 0
    if (tableExists(db, schema, table)) {
      hash.update(`${JSON.stringify(columnsOf(db, schema, table))}\n`)
      for (const row of db.prepare(orderedSelect(db, schema, table)).raw().iterate() as Iterable<unknown[]>) {
        hash.update(`${JSON.stringify(row)}\n`)
        rows++
      }
    }
    counts.push({ table, rows })
  }
  return { digest: hash.digest('hex'), tables: counts }
}

export interface TableDifference {
  readonly table: string
  /** What differs, in one line. */
  readonly message: string
  /** Up to a few rows present on one side only. */
  readonly onlyLive: readonly Record<string, unknown>[]
  readonly onlyRebuilt: readonly Record<string, unknown>[]
}

const SHOWN_ROWS = 5

/** Differences between `main.table` (live) and `rebuilt.table`; the rebuilt database must be attached as `rebuilt`. */
export function diffTable(db: Database, table: string): TableDifference | null {
  const live = tableExists(db, 'main', table)
  const rebuilt = tableExists(db, 'rebuilt', table)
  if (!live || !rebuilt) {
    if (!live && !rebuilt) return null
    return { table, message: `${table} exists only in the ${live ? 'live' : 'rebuilt'} read models`, onlyLive: [], onlyRebuilt: [] }
  }
  const liveColumns = columnsOf(db, 'main', table)
  const rebuiltColumns = columnsOf(db, 'rebuilt', table)
  if (JSON.stringify(liveColumns) !== JSON.stringify(rebuiltColumns)) {
    return { table, message: `${table} has columns (${liveColumns.join(', ')}) live but (${rebuiltColumns.join(', ')}) rebuilt`, onlyLive: [], onlyRebuilt: [] }
  }
  const columns = liveColumns.map(quoteIdent).join(', ')
  const name = quoteIdent(table)
  const except = (left: Schema, right: Schema) =>
    db.prepare(`SELECT ${columns} FROM ${left}.${name} EXCEPT SELECT ${columns} FROM ${right}.${name} ORDER BY ${columns} LIMIT ${SHOWN_ROWS}`).all() as Record<string, unknown>[]
  const count = (schema: Schema) => db.prepare(`SELECT count(*) FROM ${schema}.${name}`).pluck().get() as number
  const onlyLive = except('main', 'rebuilt')
  const onlyRebuilt = except('rebuilt', 'main')
  const liveRows = count('main')
  const rebuiltRows = count('rebuilt')
  if (onlyLive.length === 0 && onlyRebuilt.length === 0 && liveRows === rebuiltRows) return null
  return { table, message: `${table}: ${liveRows} rows live, ${rebuiltRows} rebuilt, and they differ`, onlyLive, onlyRebuilt }
}
