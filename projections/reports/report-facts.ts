/**
 * The report's per-lead facts and the buckets they add to: a lead counts once per milestone (called,
 * reached, connected, callback booked, qualified, paid), on the day it arrived in the account's zone
 * and under the source it arrived with; its speed to lead once, when its phone first rang.
 */
import type { Database } from 'better-sqlite3'
import { leadTimeZone } from '../../src/domain/dialing/lead-time-zone.ts'
import type { LeadReceived } from '../../src/domain/lead/intake/intake.events.ts'
import { parseLeadStream } from '../../src/domain/lead/lead.events.ts'
import { sqlTemplate, statement } from '../../src/read-models/statement-cache.ts'
import { localSlot, type LocalSlot } from './local-slot.ts'

/** A lead's milestones, one bit each, and the column of `report_days` each adds to. */
export const MILESTONES = {
  called: { bit: 1, column: 'called' },
  reached: { bit: 2, column: 'reached' },
  connected: { bit: 4, column: 'connected' },
  callback: { bit: 8, column: 'callback' },
  qualified: { bit: 16, column: 'qualified' },
  paid: { bit: 32, column: 'paid' },
} as const
export type Milestone = keyof typeof MILESTONES

const DEFAULT_ZONE = 'America/New_York'

export interface ReportLead {
  readonly accountId: string
  readonly day: string
  readonly source: string
  readonly receivedAt: string
  readonly leadZone: string | null
  readonly flags: number
}

export function setupReportFacts(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS report_zones (account_id TEXT PRIMARY KEY, zone TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS report_leads (
      stream TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      source TEXT NOT NULL,
      received_at TEXT NOT NULL,
      lead_zone TEXT,
      flags INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS report_days (
      account_id TEXT NOT NULL, day TEXT NOT NULL, source TEXT NOT NULL,
      leads INTEGER NOT NULL DEFAULT 0, called INTEGER NOT NULL DEFAULT 0, reached INTEGER NOT NULL DEFAULT 0,
      connected INTEGER NOT NULL DEFAULT 0, callback INTEGER NOT NULL DEFAULT 0, qualified INTEGER NOT NULL DEFAULT 0, paid INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, source)
    );
    CREATE TABLE IF NOT EXISTS report_speed (
      account_id TEXT NOT NULL, day TEXT NOT NULL, seconds INTEGER NOT NULL, leads INTEGER NOT NULL,
      PRIMARY KEY (account_id, day, seconds)
    );
    CREATE TABLE IF NOT EXISTS report_hours (
      account_id TEXT NOT NULL, day TEXT NOT NULL, weekday INTEGER NOT NULL, hour INTEGER NOT NULL,
      calls INTEGER NOT NULL DEFAULT 0, answered INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, weekday, hour)
    );
    CREATE TABLE IF NOT EXISTS report_payments (
      account_id TEXT NOT NULL, day TEXT NOT NULL, currency TEXT NOT NULL, payments INTEGER NOT NULL, amount_cents INTEGER NOT NULL,
      PRIMARY KEY (account_id, day, currency)
    );
  `)
}

/** The account's zone as it was when the event happened (its settings, followed on the log). */
export function accountZone(db: Database, accountId: string): string {
  return (statement(db, 'SELECT zone FROM report_zones WHERE account_id = ?').pluck().get(accountId) as string | undefined) ?? DEFAULT_ZONE
}

export function setAccountZone(db: Database, accountId: string, zone: string): void {
  statement(db, 'INSERT INTO report_zones (account_id, zone) VALUES (?, ?) ON CONFLICT(account_id) DO UPDATE SET zone = excluded.zone').run(accountId, zone)
}

/** A lead as it arrived: its day, its source, its own zone; a lead form's test lead is left out of every figure. */
export function receiveLead(db: Database, stream: string, event: LeadReceived): void {
  const d = event.data
  if (d.test === true) return
  const slot = localSlot(d.receivedAt, accountZone(db, d.accountId))
  if (slot === null) return
  const source = (d.fields.source ?? '').trim()
  const leadZone = leadTimeZone({ state: d.fields.state ?? undefined, phone: d.fields.phone })?.zone ?? null
  const added = statement(db, 'INSERT OR IGNORE INTO report_leads (stream, account_id, day, source, received_at, lead_zone) VALUES (?, ?, ?, ?, ?, ?)')
    .run(stream, d.accountId, slot.day, source, d.receivedAt, leadZone)
  if (added.changes === 0) return
  statement(db, 'INSERT INTO report_days (account_id, day, source, leads) VALUES (?, ?, ?, 1) ON CONFLICT(account_id, day, source) DO UPDATE SET leads = leads + 1')
    .run(d.accountId, slot.day, source)
}

export function reportLead(db: Database, stream: string): ReportLead | null {
  return (statement(db, 'SELECT account_id AS accountId, day, source, received_at AS receivedAt, lead_zone AS leadZone, flags FROM report_leads WHERE stream = ?')
    .get(stream) as ReportLead | undefined) ?? null
}

const milestoneSql = sqlTemplate((column) => `UPDATE report_days SET ${column} = ${column} + 1 WHERE account_id = ? AND day = ? AND source = ?`)

/** Counts `milestone` for the lead once; `at` (when it first happened) times a first call: speed to lead. */
export function markLead(db: Database, stream: string, milestone: Milestone, at?: string): void {
  const lead = reportLead(db, stream)
  const { bit, column } = MILESTONES[milestone]
  if (lead === null || (lead.flags & bit) !== 0) return
  statement(db, 'UPDATE report_leads SET flags = flags | ? WHERE stream = ?').run(bit, stream)
  statement(db, milestoneSql(column)).run(lead.accountId, lead.day, lead.source)
  if (milestone === 'called' && at !== undefined) {
    const seconds = Math.max(0, Math.floor((Date.parse(at) - Date.parse(lead.receivedAt)) / 1000))
    if (Number.isNaN(seconds)) return
    statement(db, 'INSERT INTO report_speed (account_id, day, seconds, leads) VALUES (?, ?, ?, 1) ON CONFLICT(account_id, day, seconds) DO UPDATE SET leads = leads + 1')
      .run(lead.accountId, lead.day, seconds)
  }
}

/** Where a call that rang the lead at `at` falls on the lead's own clock (its state's or number's zone, else the account's). */
export function leadSlot(db: Database, stream: string, at: string): (LocalSlot & { accountDay: string; accountId: string }) | null {
  const lead = reportLead(db, stream)
  if (lead === null) return null
  const zone = accountZone(db, lead.accountId)
  const own = localSlot(at, lead.leadZone ?? zone)
  const accountDay = localSlot(at, zone)?.day
  return own === null || accountDay === undefined ? null : { ...own, accountDay, accountId: lead.accountId }
}

/** One more call that rang the lead (or one more answered) in the hour × weekday bucket of the day the account saw it. */
export function countHour(db: Database, accountId: string, day: string, weekday: number, hour: number, answered: boolean): void {
  statement(db, `INSERT INTO report_hours (account_id, day, weekday, hour, calls, answered) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT(account_id, day, weekday, hour) DO UPDATE SET calls = calls + excluded.calls, answered = answered + excluded.answered`)
    .run(accountId, day, weekday, hour, answered ? 0 : 1, answered ? 1 : 0)
}

/** A payment settled: its amount on the day it settled, in the account's zone. */
export function countPayment(db: Database, stream: string, amountCents: number, currency: string, at: string): void {
  const accountId = parseLeadStream(stream)?.accountId
  if (accountId === undefined) return
  const day = localSlot(at, accountZone(db, accountId))?.day
  if (day === undefined) return
  statement(db, `INSERT INTO report_payments (account_id, day, currency, payments, amount_cents) VALUES (?, ?, ?, 1, ?)
    ON CONFLICT(account_id, day, currency) DO UPDATE SET payments = payments + 1, amount_cents = amount_cents + excluded.amount_cents`)
    .run(accountId, day, currency.toLowerCase(), amountCents)
}
