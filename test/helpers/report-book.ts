/**
 * A book with known figures for the reports and the Calls page (issue #44), appended as events so
 * every instant is chosen: an account in America/Chicago (CDT, UTC-5, in March 2026), 10 leads on
 * Tuesday 10 March and 1 on Wednesday 11 March. The figures they must give are in `EXPECTED`,
 * worked out by hand in docs/reports.md's terms.
 */
import type { Actor, NewEvent } from '../../src/domain/event.ts'
import type { EventStore } from '../../src/eventstore/event-store.port.ts'
import { schemaVersionOf } from '../../src/domain/upcasters.ts'

export const BOOK_ZONE = 'America/Chicago'
/** "Now" for the book: Wednesday 11 March 2026, 12:00 in Chicago. */
export const BOOK_NOW = new Date('2026-03-11T17:00:00Z')

const carrier: Actor = { kind: 'carrier', id: 'twilio' }
const ev = (type: string, data: object, actor: Actor = carrier): NewEvent => ({ type, data, metadata: { correlationId: `c-${type}`, causationId: null, actor, schemaVersion: schemaVersionOf(type) } })
const at = (iso: string, seconds = 0) => new Date(Date.parse(iso) + seconds * 1000).toISOString()

/** Seconds from arrival to the first ring of leads 1 to 8: median (rank 4 of 8) 40 s, p90 (rank 8) 600 s. */
export const SPEEDS = [10, 20, 30, 40, 50, 60, 70, 600]

export interface BookLead {
  readonly n: number
  readonly leadId: string
  readonly stream: string
  readonly phone: string
}

function lead(accountId: string, n: number): BookLead {
  const last10 = `312555${String(100 + n).padStart(4, '0')}`
  return { n, leadId: `ld_book${String(n).padStart(12, '0')}`, stream: `lead-${accountId}-${last10}`, phone: `+1${last10}` }
}

/** Appends the book to `store` for account `accountId` (created in BOOK_ZONE beforehand). */
export async function seedReportBook(store: EventStore, accountId: string): Promise<BookLead[]> {
  const token: Actor = { kind: 'webhook_token', id: 'wht_book' }
  const leads: BookLead[] = []
  for (let n = 1; n <= 11; n++) {
    const l = lead(accountId, n)
    leads.push(l)
    // Leads 1-9 arrive at 10:00 CDT on the 10th, a minute apart; lead 10 at 23:30 CDT (04:30 UTC on the 11th): still the 10th;
    // lead 11 at 00:30 CDT on the 11th.
    const receivedAt = n === 10 ? '2026-03-11T04:30:00.000Z' : n === 11 ? '2026-03-11T05:30:00.000Z' : at('2026-03-10T15:00:00.000Z', (n - 1) * 60)
    const source = n === 11 ? 'Website' : n <= 6 ? 'Google Ads' : 'Facebook'
    const fields = { phone: l.phone, phoneLast10: l.phone.slice(-10), phoneRaw: l.phone, fullName: `Book Lead ${n}`, source, ...(n === 8 ? { state: 'CA' } : {}), industryFields: {}, extraFields: [] }
    const events: NewEvent[] = [ev('LeadReceived', { leadId: l.leadId, accountId, fields, receivedAt, list: { listId: 'inbound-leads', listName: 'Inbound Leads' } }, token)]
    if (n <= 8) {
      const decisionId = `dec_book${n}`
      const callId = `CAbook${n}`
      const placedAt = at(receivedAt, SPEEDS[n - 1])
      events.push(
        ev('CallDecided', { leadId: l.leadId, decisionId, purpose: 'speed_to_lead', attempt: 1, from: '+13125550100', to: l.phone, decidedAt: at(receivedAt, 1), idempotencyKey: null }, { kind: 'process', id: 'speed-to-lead' }),
        ev('CallAttemptStarted', { decisionId, node: 'n1', startedAt: at(receivedAt, 1) }, { kind: 'process', id: 'dialer' }),
        ev('CallPlaced', { decisionId, callId, carrier: 'twilio', placedAt }, { kind: 'process', id: 'dialer' }),
      )
      if (n <= 4) {
        events.push(ev('CallAnswered', { decisionId, callId, answeredBy: 'human', at: at(placedAt, 8) }))
        if (n === 1) events.push(ev('OwnerConnectEnded', { decisionId, connected: true, status: 'completed', at: at(placedAt, 60) }))
        if (n === 3) events.push(ev('CallbackRequested', { decisionId, callbackAt: '2026-03-12T15:00:00.000Z', at: at(placedAt, 20) }))
        events.push(ev('CallCompleted', { decisionId, callId, durationSeconds: 60 + n, at: at(placedAt, 70) }))
        if (n === 2) {
          events.push(ev('AssistantCallEnded', { decisionId, callId, disposition: 'qualified', answers: [], callbackAt: null, why: null, provider: 'scripted', turns: 4, endedAt: at(placedAt, 70) }))
        }
      } else if (n <= 7) {
        events.push(ev('CallNotAnswered', { decisionId, callId, status: 'no-answer', at: at(placedAt, 30) }))
      } else {
        events.push(
          ev('CallReachedMachine', { decisionId, callId, answeredBy: 'machine_end_beep', at: at(placedAt, 5) }),
          ev('VoicemailLeft', { decisionId, callId, at: at(placedAt, 25) }),
          ev('CallNotAnswered', { decisionId, callId, status: 'machine', at: at(placedAt, 30) }),
        )
      }
    }
    if (n === 1) {
      // Paid at 23:59 CDT on the 10th.
      events.push(ev('PaymentSettled', { requestId: 'pay_book1', sessionId: 'cs_book1', amountCents: 5000, currency: 'usd', paymentIntentId: null, provider: 'simulated', providerEventId: 'evt_book1', at: '2026-03-11T04:59:00.000Z' }, { kind: 'payments', id: 'simulated' }))
    }
    if (n === 10) {
      events.push(
        ev('InboundCallReceived', { leadId: l.leadId, callId: 'CAin10', from: l.phone, to: '+13125550100', newLead: false, withinBusinessHours: false, route: 'voicemail', at: at(receivedAt, 120) }),
        ev('InboundCallMissed', { callId: 'CAin10', reason: 'outside_business_hours', callbackRequested: true, at: at(receivedAt, 150) }),
      )
    }
    if (n === 11) {
      events.push(
        ev('InboundCallReceived', { leadId: l.leadId, callId: 'CAin11', from: l.phone, to: '+13125550100', newLead: false, withinBusinessHours: true, route: 'owners', at: at(receivedAt, 60) }),
        ev('InboundCallConnected', { callId: 'CAin11', by: 'owner', leg: 0, ownerNumber: '+13125550199', at: at(receivedAt, 75) }),
      )
    }
    await store.appendToStream(l.stream, events, 'no_stream')
  }
  return leads
}

/** What the book must give, by hand. */
export const EXPECTED = {
  march10: { leads: 10, called: 8, reached: 4, connected: 2, callback: 2, qualified: 1, paid: 1, contactRate: 0.4, speedMedianSeconds: 40, speedP90Seconds: 600 },
  march11: { leads: 1, called: 0, reached: 1, connected: 1, callback: 0, qualified: 0, paid: 0, contactRate: 1, speedMedianSeconds: null, speedP90Seconds: null },
  /** Calls that rang a lead: 7 at 10:00 CDT on a Tuesday (leads 1-7, Chicago numbers), lead 8 (California) at 08:07 PDT. */
  tuesday10: { calls: 7, answered: 4 },
  tuesday8: { calls: 1, answered: 0 },
  calls: 10,
} as const
