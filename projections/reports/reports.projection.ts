/**
 * The owner's reports and Calls page (issue #44), kept as events arrive: per account, per day in the
 * account's zone and per source, the leads and how far each got (report_days); speed to lead as an
 * exact distribution per day (report_speed); calls that rang a lead by the lead's local weekday and
 * hour (report_hours); payments per day (report_payments); and the call log of both directions
 * (call_log). docs/reports.md defines every figure.
 */
import type { Database } from 'better-sqlite3'
import type { RecordedEvent } from '../../src/domain/event.ts'
import type { AccountEvent } from '../../src/domain/account/account.events.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { InboundEvent } from '../../src/domain/lead/inbound/inbound.events.ts'
import type { Projection } from '../../src/read-models/projection.ts'
import { addCall, answeredByPerson, inboundKey, rangLead, setInbound, setOutbound, setupCallLog } from './call-log.ts'
import { countPayment, markLead, receiveLead, setAccountZone, setupReportFacts } from './report-facts.ts'

type ReportEvent = LeadEvent | AccountEvent | InboundEvent

/** Dispositions of the voice assistant that were no conversation with the lead. */
const NO_CONVERSATION = new Set(['no_conversation', 'wrong_number'])

function applyCall(db: Database, recorded: RecordedEvent, event: ReportEvent): void {
  const stream = recorded.stream
  switch (event.type) {
    case 'CallDecided':
      addCall(db, event.data.decisionId, stream, event.data.leadId, 'outbound', event.data.decidedAt, event.data.purpose)
      return
    case 'CallPlaced':
      setOutbound(db, event.data.decisionId, "stage = 'placed'")
      // An owner leg rings the owner, not the lead: the lead rings once it is dialed (LeadDialStarted).
      if (event.data.ownerLeg === undefined) {
        rangLead(db, event.data.decisionId, stream, event.data.placedAt)
        markLead(db, stream, 'called', event.data.placedAt)
      }
      return
    case 'LeadDialStarted':
      rangLead(db, event.data.decisionId, stream, event.data.at)
      markLead(db, stream, 'called', event.data.at)
      return
    case 'AssistantFallbackStarted':
      setOutbound(db, event.data.decisionId, "stage = 'started', ended = 0, status = NULL")
      return
    case 'AgentUnavailable':
      if (event.data.nextLeg === null) setOutbound(db, event.data.decisionId, "stage = CASE stage WHEN 'started' THEN 'placed' ELSE stage END, ended = 1, status = 'agent_unavailable'")
      return
    case 'CallFailed':
      setOutbound(db, event.data.decisionId, "stage = 'failed', ended = 1")
      return
    case 'CallOutcomeUnknown':
      setOutbound(db, event.data.decisionId, "stage = 'unknown', ended = 1")
      return
    case 'CallExpired':
      setOutbound(db, event.data.decisionId, "stage = 'expired', ended = 1, status = 'expired'")
      return
    case 'CallAnswered':
      answeredByPerson(db, event.data.decisionId)
      markLead(db, stream, 'reached')
      return
    case 'CallNotAnswered':
      setOutbound(db, event.data.decisionId, 'ended = 1, status = ?', event.data.status)
      return
    case 'CallCompleted':
      setOutbound(db, event.data.decisionId, 'ended = 1, duration_seconds = ?', event.data.durationSeconds)
      return
    case 'CallReachedMachine':
      setOutbound(db, event.data.decisionId, "machine = 1, answered_by = 'machine'")
      return
    case 'VoicemailLeft':
      setOutbound(db, event.data.decisionId, 'voicemail = 1')
      return
    case 'OwnerConnectEnded':
      setOutbound(db, event.data.decisionId, 'owner_connected = ?', event.data.connected ? 1 : 0)
      if (event.data.connected) markLead(db, stream, 'connected')
      return
    default:
      applyInbound(db, recorded, event)
  }
}

function applyInbound(db: Database, recorded: RecordedEvent, event: ReportEvent): void {
  const stream = recorded.stream
  switch (event.type) {
    case 'InboundCallReceived':
      addCall(db, inboundKey(event.data.callId), stream, event.data.leadId, 'inbound', event.data.at, null)
      return
    case 'InboundCallConnected':
      setInbound(db, event.data.callId, "outcome = 'answered', answered = 1, answered_by = ?, stage = 'connected'", event.data.by)
      markLead(db, stream, 'reached')
      markLead(db, stream, 'connected')
      return
    case 'InboundCallMissed':
      setInbound(db, event.data.callId, "outcome = 'missed', ended = 1, stage = 'missed', status = ?", event.data.reason)
      if (event.data.callbackRequested) markLead(db, stream, 'callback')
      return
    case 'InboundVoicemailLeft':
      setInbound(db, event.data.callId, 'voicemail = 1')
      return
    default:
      return
  }
}

export const reportsProjection: Projection = {
  name: 'reports',
  version: 1,
  handles: [
    'AccountCreated', 'AccountSettingsChanged', 'LeadReceived',
    // A claim (CallAttemptStarted, OwnerLegStarted) changes no outcome: the call is in progress from its decision to its end.
    'CallDecided', 'CallPlaced', 'LeadDialStarted', 'AssistantFallbackStarted', 'AgentUnavailable',
    'CallFailed', 'CallOutcomeUnknown', 'CallExpired', 'CallAnswered', 'CallNotAnswered', 'CallCompleted', 'CallReachedMachine', 'VoicemailLeft',
    'OwnerConnectEnded', 'CallbackRequested', 'CallbackScheduled', 'AssistantCallEnded', 'PaymentSettled',
    'InboundCallReceived', 'InboundCallConnected', 'InboundCallMissed', 'InboundVoicemailLeft',
  ],
  tables: ['report_zones', 'report_leads', 'report_days', 'report_speed', 'report_hours', 'report_payments', 'call_log'],

  setup(db: Database) {
    setupReportFacts(db)
    setupCallLog(db)
  },

  apply(db: Database, recorded: RecordedEvent) {
    const event = recorded as unknown as ReportEvent
    switch (event.type) {
      case 'AccountCreated':
        setAccountZone(db, event.data.accountId, event.data.settings.timeZone)
        return
      case 'AccountSettingsChanged':
        if (event.data.changes.timeZone !== undefined) setAccountZone(db, recorded.stream.slice('account-'.length), event.data.changes.timeZone)
        return
      case 'LeadReceived':
        receiveLead(db, recorded.stream, event)
        return
      case 'CallbackRequested':
      case 'CallbackScheduled':
        markLead(db, recorded.stream, 'callback')
        return
      case 'AssistantCallEnded':
        if (!NO_CONVERSATION.has(event.data.disposition)) markLead(db, recorded.stream, 'connected')
        if (event.data.disposition === 'qualified') markLead(db, recorded.stream, 'qualified')
        if (event.data.callbackAt !== null || event.data.disposition === 'callback_booked') markLead(db, recorded.stream, 'callback')
        return
      case 'PaymentSettled':
        markLead(db, recorded.stream, 'paid')
        countPayment(db, recorded.stream, event.data.amountCents, event.data.currency, event.data.at)
        return
      default:
        applyCall(db, recorded, event)
    }
  },
}
