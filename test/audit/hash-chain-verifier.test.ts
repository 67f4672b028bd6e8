/**
 * Tamper evidence: the log's SQLite file is altered directly (UPDATE, DELETE, swapped rows, inserted
 * rows, recomputed hashes), as someone with the file would, and `verifyLog` must name the first bad
 * event of each stream. Each case works on its own copy of one log.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import t, { type Test } from 'tap'
import { openLogForReading } from '../../src/audit/audited-log.ts'
import { verifyLog, verifyStream, type ChainFinding, type VerifyReport } from '../../src/audit/hash-chain-verifier.ts'
import type { RecordedEvent } from '../../src/domain/event.ts'
import { hashEvent } from '../../src/eventstore/hash-chain.ts'
import { ACCOUNT, ACCOUNT_STORY, ACCOUNT_STREAM, ALERT_STORIES, OAUTH_RECORD_STORIES, RESTORE_STORY, FACEBOOK_LEAD_STORY, FACEBOOK_PAGE_STORY, LEAD_STORY, NUMBER_CLAIM_STORY, NUMBER_PURCHASE_STORIES, OTHER_ACCOUNT, OTHER_ACCOUNT_STORY, SLOT_STORY, DAY_STORY, CALENDAR_SYNC_STORY, STREAM, USER_STORY, writeAuditLog } from '../helpers/audit-log.ts'

interface Row {
  position: number
  id: string
  stream: string
  revision: number
  type: string
  data: string
  metadata: string
  recorded_at: string
  prev_hash: string | null
  hash: string
}

const base = path.join(t.testdir(), 'base.db')
const log = await writeAuditLog(base)
await log.store.close()
let copies = 0

/** A copy of the intact log, altered by `change` through a plain SQLite connection, then verified through the port. */
async function tampered(change: (db: Database.Database, row: (stream: string, revision: number) => Row) => void, accountId?: string): Promise<VerifyReport> {
  const file = path.join(path.dirname(base), `copy-${++copies}.db`)
  fs.copyFileSync(base, file)
  const db = new Database(file)
  try {
    const row = (stream: string, revision: number) => db.prepare('SELECT * FROM events WHERE stream = ? AND revision = ?').get(stream, revision) as Row
    change(db, row)
  } finally {
    db.close()
  }
  const store = await openLogForReading(`sqlite:${file}`)
  try {
    return await verifyLog(store, accountId === undefined ? {} : { accountId })
  } finally {
    await store.close()
  }
}

function recompute(row: Row, prevHash: string | null = row.prev_hash): string {
  return hashEvent(
    { id: row.id, stream: row.stream, revision: row.revision, type: row.type, data: JSON.parse(row.data), metadata: JSON.parse(row.metadata), recordedAt: row.recorded_at },
    prevHash,
  )
}

function only(t: Test, report: VerifyReport): ChainFinding {
  t.equal(report.findings.length, 1, 'one stream fails')
  return report.findings[0] as ChainFinding
}

const intact = await tampered(() => {})
const streams = 13 + ALERT_STORIES.length + OAUTH_RECORD_STORIES.length + NUMBER_PURCHASE_STORIES.length
const total = LEAD_STORY.length + ACCOUNT_STORY.length + 2 + 1 + OTHER_ACCOUNT_STORY.length + 15 + USER_STORY.length + FACEBOOK_PAGE_STORY.length + NUMBER_CLAIM_STORY.length + NUMBER_PURCHASE_STORIES.reduce((n, [, events]) => n + events.length, 0) + FACEBOOK_LEAD_STORY.length + ALERT_STORIES.reduce((n, [, events]) => n + events.length, 0)
  + OAUTH_RECORD_STORIES.reduce((n, [, events]) => n + events.length, 0) + RESTORE_STORY.length + SLOT_STORY.length + DAY_STORY.length + CALENDAR_SYNC_STORY.length

t.test('an untouched log verifies: every stream, every event', async (t) => {
  t.same(intact.findings, [])
  t.equal(intact.events, total)
  t.equal(intact.streams, streams)
  t.equal(intact.head, total)
})

t.test('a changed event is named: data, type, metadata, recorded time, id or previous hash edited', async (t) => {
  const cases: Array<[string, number, (db: Database.Database, row: Row) => void]> = [
    ['data', 5, (db, row) => db.prepare("UPDATE events SET data = json_set(data, '$.carrier', 'other') WHERE position = ?").run(row.position)],
    ['type', 3, (db, row) => db.prepare("UPDATE events SET type = 'CallCompleted' WHERE position = ?").run(row.position)],
    ['metadata (the actor)', 0, (db, row) => db.prepare("UPDATE events SET metadata = json_set(metadata, '$.actor.id', 'wht_someone_else') WHERE position = ?").run(row.position)],
    ['recorded_at', 7, (db, row) => db.prepare("UPDATE events SET recorded_at = '2026-01-01T00:00:00.000Z' WHERE position = ?").run(row.position)],
    ['id', 12, (db, row) => db.prepare("UPDATE events SET id = 'f0000000-0000-4000-8000-000000000000' WHERE position = ?").run(row.position)],
    ['prev_hash', 4, (db, row) => db.prepare('UPDATE events SET prev_hash = ? WHERE position = ?').run('0'.repeat(64), row.position)],
    ['hash', 9, (db, row) => db.prepare('UPDATE events SET hash = ? WHERE position = ?').run('f'.repeat(64), row.position)],
  ]
  for (const [what, revision, change] of cases) {
    let position = 0
    const report = await tampered((db, row) => {
      const target = row(STREAM, revision)
      position = target.position
      change(db, target)
    })
    const found = only(t, report)
    t.match(found, { stream: STREAM, problem: 'changed', revision, position }, `${what} edited at revision ${revision}`)
    t.match(found.message, /no longer matches its hash/)
  }
})

t.test('a changed event whose hash was recomputed (a forged hash) is caught by the next link', async (t) => {
  let position = 0
  const report = await tampered((db, row) => {
    const target = row(STREAM, 6)
    position = target.position
    const data = JSON.stringify({ ...JSON.parse(target.data), recordingUrl: 'https://example.com/other' })
    db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = ?').run(data, recompute({ ...target, data }), target.position)
  })
  const found = only(t, report)
  t.match(found, { stream: STREAM, problem: 'changed', revision: 6, position })
  t.match(found.message, /chain breaks after revision 6 .* changed and its hash recomputed/)
})

t.test('a removed event is named by its revision, wherever it was', async (t) => {
  let next = 0
  const middle = await tampered((db, row) => {
    next = row(STREAM, 11).position
    db.prepare('DELETE FROM events WHERE position = ?').run(row(STREAM, 10).position)
  })
  t.match(only(t, middle), { stream: STREAM, problem: 'removed', revision: 10, position: next, message: /revision 10 is missing/ })

  const first = await tampered((db, row) => db.prepare('DELETE FROM events WHERE position = ?').run(row(ACCOUNT_STREAM, 0).position))
  t.match(only(t, first), { stream: ACCOUNT_STREAM, problem: 'removed', revision: 0, message: /revision 0 is missing: the stream goes from its start/ })

  const two = await tampered((db, row) => {
    db.prepare('DELETE FROM events WHERE position IN (?, ?)').run(row(STREAM, 3).position, row(STREAM, 4).position)
  })
  t.match(only(t, two), { problem: 'removed', revision: 3, message: /revisions 3–4 are missing/ })

  // Removed, and the later events renumbered to close the gap: their hashes still name their old revisions.
  const renumbered = await tampered((db, row) => {
    db.prepare('DELETE FROM events WHERE position = ?').run(row(STREAM, 10).position)
    for (let revision = 11; revision < LEAD_STORY.length; revision++) {
      db.prepare('UPDATE events SET revision = revision - 1 WHERE stream = ? AND revision = ?').run(STREAM, revision)
    }
  })
  t.match(only(t, renumbered), { stream: STREAM, problem: 'removed', revision: 10, message: /revision 10 was removed and the later events renumbered: the event now at revision 10 .* was written as revision 11/ })
})

t.test('reordered events: swapped rows are named', async (t) => {
  // The rows' places in the log swapped (positions exchanged).
  const positions = await tampered((db, row) => {
    const a = row(STREAM, 4).position
    const b = row(STREAM, 5).position
    db.prepare('UPDATE events SET position = -1 WHERE position = ?').run(a)
    db.prepare('UPDATE events SET position = ? WHERE position = ?').run(a, b)
    db.prepare('UPDATE events SET position = ? WHERE position = -1').run(b)
  })
  t.match(only(t, positions), { stream: STREAM, problem: 'reordered', revision: 4, message: /revisions 4 and 5 are out of order/ })

  // The rows' contents swapped, each keeping the other's revision and position.
  const contents = await tampered((db, row) => {
    const a = row(STREAM, 4)
    const b = row(STREAM, 5)
    const put = db.prepare('UPDATE events SET id = ?, type = ?, data = ?, metadata = ?, recorded_at = ?, prev_hash = ?, hash = ? WHERE position = ?')
    db.prepare("UPDATE events SET id = 'swap-tmp' WHERE position = ?").run(a.position)
    put.run(a.id, a.type, a.data, a.metadata, a.recorded_at, a.prev_hash, a.hash, b.position)
    put.run(b.id, b.type, b.data, b.metadata, b.recorded_at, b.prev_hash, b.hash, a.position)
  })
  t.match(only(t, contents), { stream: STREAM, problem: 'reordered', revision: 4, message: /revisions 4 and 5 were swapped/ })
})

t.test('an inserted event is named, even one chained and hashed correctly', async (t) => {
  const forge = (db: Database.Database, row: (stream: string, revision: number) => Row, shiftPositions: boolean) => {
    const before = row(STREAM, 7)
    const template = row(STREAM, 8)
    // Make room at revision 8 (highest first: (stream, revision) is unique).
    for (let revision = LEAD_STORY.length - 1; revision >= 8; revision--) {
      db.prepare('UPDATE events SET revision = revision + 1 WHERE stream = ? AND revision = ?').run(STREAM, revision)
    }
    let position = (db.prepare('SELECT max(position) FROM events').pluck().get() as number) + 1
    if (shiftPositions) {
      // Also make room in the log order, so the forged event sits where it claims to.
      for (const p of db.prepare('SELECT position FROM events WHERE position >= ? ORDER BY position DESC').pluck().all(template.position) as number[]) {
        db.prepare('UPDATE events SET position = position + 1 WHERE position = ?').run(p)
      }
      position = template.position
    }
    const forged: Row = { ...template, position, id: 'f0000000-0000-4000-8000-00000000000f', revision: 8, type: 'CallAnswered', data: JSON.stringify({ decisionId: 'dec_1', callId: 'CA111', answeredBy: 'human', at: '2026-03-10T15:08:30.000Z' }), prev_hash: before.hash }
    forged.hash = recompute(forged, before.hash)
    db.prepare('INSERT INTO events (position, id, stream, revision, type, data, metadata, recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      forged.position, forged.id, forged.stream, forged.revision, forged.type, forged.data, forged.metadata, forged.recorded_at, forged.prev_hash, forged.hash,
    )
  }
  for (const shiftPositions of [false, true]) {
    const report = await tampered((db, row) => forge(db, row, shiftPositions))
    t.match(only(t, report), { stream: STREAM, problem: 'inserted', revision: 8, id: 'f0000000-0000-4000-8000-00000000000f', message: /an event was inserted at revision 8: the event now at revision 9 .* was written as revision 8/ }, shiftPositions ? 'in place' : 'at the end of the log')
  }

  // A row added at the end of a stream without the means to hash it.
  const naive = await tampered((db, row) => {
    const last = row(STREAM, LEAD_STORY.length - 1)
    db.prepare("INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at, prev_hash, hash) VALUES ('naive', ?, ?, 'LeadMarkedDoNotCall', '{}', ?, ?, ?, ?)").run(
      STREAM, LEAD_STORY.length, last.metadata, last.recorded_at, last.hash, 'e'.repeat(64),
    )
  })
  t.match(only(t, naive), { stream: STREAM, problem: 'changed', revision: LEAD_STORY.length, id: 'naive' })
})

t.test('every bad stream is named, in log order; --account checks that account only', async (t) => {
  const change = (db: Database.Database, row: (stream: string, revision: number) => Row) => {
    db.prepare("UPDATE events SET data = json_set(data, '$.name', 'Mallory') WHERE position = ?").run(row(ACCOUNT_STREAM, 0).position)
    db.prepare("UPDATE events SET data = json_set(data, '$.fields.email', 'x@example.com') WHERE position = ?").run(row(`lead-${OTHER_ACCOUNT}-3125550142`, 0).position)
    db.prepare('DELETE FROM events WHERE position = ?').run(row(STREAM, 2).position)
  }
  const all = await tampered(change)
  t.same(all.findings.map((f) => [f.stream, f.problem, f.revision]), [
    [ACCOUNT_STREAM, 'changed', 0],
    [STREAM, 'removed', 2],
    [`lead-${OTHER_ACCOUNT}-3125550142`, 'changed', 0],
  ])
  t.equal(all.streams, streams)
  const scoped = await tampered(change, OTHER_ACCOUNT)
  t.same(scoped.findings.map((f) => f.stream), [`lead-${OTHER_ACCOUNT}-3125550142`])
  t.equal(scoped.events, 16 + OTHER_ACCOUNT_STORY.length + USER_STORY.length + ALERT_STORIES.reduce((n, [, events]) => n + events.length, 0))
  t.equal(scoped.streams, 3 + ALERT_STORIES.length)
  t.same((await tampered(() => {}, ACCOUNT)).findings, [])
})

t.test('what a chain cannot show: the newest event of a stream rewritten with its hash recomputed', async (t) => {
  // Documented in docs/audit.md: keep exports (their stream heads) elsewhere to catch this.
  const report = await tampered((db, row) => {
    const last = row(STREAM, LEAD_STORY.length - 1)
    const data = JSON.stringify({ ...JSON.parse(last.data), amountCents: 1 })
    db.prepare('UPDATE events SET data = ?, hash = ? WHERE position = ?').run(data, recompute({ ...last, data }), last.position)
  })
  t.same(report.findings, [], 'the chain is consistent; only a head kept elsewhere tells')
})

t.test('verifyStream works on any store: a second event at one revision is an insertion', async (t) => {
  const store = await openLogForReading(`sqlite:${base}`)
  const events = await store.readStream(STREAM)
  await store.close()
  t.equal(verifyStream(events), null)
  const duplicate = [...events.slice(0, 3), { ...(events[2] as RecordedEvent), id: 'dup', position: 999 }, ...events.slice(3)]
  t.match(verifyStream(duplicate), { problem: 'inserted', revision: 2, id: 'dup', message: /a second event at revision 2/ })
  t.match(verifyStream([]), null)
})
