/** Prepared statements cached per database and SQL text: preparing costs far more than running. */
import type { Database, Statement } from 'better-sqlite3'

const caches = new WeakMap<Database, Map<string, Statement>>()

export function statement(db: Database, sql: string): Statement {
  let cache = caches.get(db)
  if (!cache) {
    cache = new Map()
    caches.set(db, cache)
  }
  let prepared = cache.get(sql)
  if (!prepared) {
    prepared = db.prepare(sql)
    cache.set(sql, prepared)
  }
  return prepared
}
