/** The statement cache and the SQL templates projections complete once per fragment. */
import Database from 'better-sqlite3'
import t from 'tap'
import { sqlTemplate, statement } from '../../src/read-models/statement-cache.ts'

t.test('a template builds its SQL once per fragment, and the cache prepares it once', async (t) => {
  const built: string[] = []
  const update = sqlTemplate((set) => {
    built.push(set)
    return `UPDATE t SET ${set} WHERE k = ?`
  })
  t.equal(update('a = ?'), 'UPDATE t SET a = ? WHERE k = ?')
  t.equal(update('b = 1'), 'UPDATE t SET b = 1 WHERE k = ?')
  t.equal(update('a = ?'), 'UPDATE t SET a = ? WHERE k = ?')
  t.same(built, ['a = ?', 'b = 1'], 'built once per fragment')

  const db = new Database(':memory:')
  t.teardown(() => db.close())
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, a TEXT, b INTEGER)')
  t.equal(statement(db, update('a = ?')), statement(db, update('a = ?')), 'one prepared statement')
  statement(db, 'INSERT INTO t (k) VALUES (?)').run('x')
  statement(db, update('a = ?')).run('set', 'x')
  t.same(db.prepare('SELECT a, b FROM t').get(), { a: 'set', b: null })
})
