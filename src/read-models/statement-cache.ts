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

/**
 * SQL completed from a fragment, built once per fragment. A projection that builds its statement
 * from a template per event makes a new string each time, which the cache above must hash in full
 * to find the statement; a replay does that a million times.
 */
export function sqlTemplate(build: (fragment: string) => string): (fragment: string) => string {
  const built = new Map<string, string>()
  return (fragment) => {
    let sql = built.get(fragment)
    if (sql === undefined) {
      sql = build(fragment)
      built.set(fragment, sql)
    }
    return sql
  }
}
