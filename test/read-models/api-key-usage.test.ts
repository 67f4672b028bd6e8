/** "Last used" notes for API keys: at most one write a minute per key, and never a reason to fail a call. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { ApiKeyUsage, USAGE_RESOLUTION_MS } from '../../src/read-models/api-key-usage.ts'
import { openViewsDatabase } from '../../src/read-models/views-database.ts'

t.test('writes a use at most once per resolution; a views database that refuses writes does not fail the caller', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-usage-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const db = openViewsDatabase(path.join(dir, 'views.db'))
  t.teardown(() => db.close())
  let now = Date.parse('2026-05-01T12:00:00Z')
  const usage = new ApiKeyUsage(db, () => new Date(now))

  usage.used('acc_1', 'key_1')
  t.same([...usage.lastUsed('acc_1')], [['key_1', '2026-05-01T12:00:00.000Z']])
  now += USAGE_RESOLUTION_MS - 1
  usage.used('acc_1', 'key_1')
  t.same([...usage.lastUsed('acc_1')], [['key_1', '2026-05-01T12:00:00.000Z']], 'within the minute: not written again')

  db.pragma('query_only = ON') // as a read-only or full disk would refuse the write
  now += 2 * USAGE_RESOLUTION_MS
  t.doesNotThrow(() => usage.used('acc_1', 'key_1'), 'the refused note does not fail the call')
  db.pragma('query_only = OFF')
  usage.used('acc_1', 'key_1')
  t.same([...usage.lastUsed('acc_1')], [['key_1', new Date(now).toISOString()]], 'the next use writes the note the refused one could not')
  t.same([...usage.lastUsed('acc_2')], [], 'per account')
})
