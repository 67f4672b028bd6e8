/**
 * A small, realistic log for the audit tests: one account (with a key) and one lead whose history
 * holds every event type of the domain (intake, calls, recordings, follow-ups, do-not-call,
 * idempotency), written through the embedded store with a clock the test controls, plus a second
 * account's lead so scoping can be checked.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import type { AccountEvent } from '../../src/domain/account/account.events.ts'
import { DEFAULT_SETTINGS } from '../../src/domain/account/account-settings.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { Actor, NewEvent } from '../../src/domain/event.ts'
import { openSqliteEventStore, type SqliteEventStore } from '../../src/eventstore/sqlite/index.ts'
import type { IdempotencyEvent } from '../../src/domain/idempotency/idempotency.events.ts'
import type { UserEvent } from '../../src/domain/user/user.events.ts'
import type { OwnerAlertEvent } from '../../src/domain/owner-alerts/owner-alerts.events.ts'
import { oauthGrantRecordsStream, oauthRecordStream, type OAuthRecordEvent } from '../../src/domain/oauth/oauth-records.events.ts'
import { schemaVersionOf } from '../../src/domain/upcasters.ts'
import { LOG_RESTORES_STREAM, type LogRestoreEvent } from '../../src/domain/restore/log-restore.ts'
import type { NumberPurchaseEvent } from '../../src/domain/numbers/number-purchase.events.ts'
import { slotClaimStream, type SlotClaimEvent } from '../../src/domain/appointments/slot-claim.events.ts'
import { dayClaimStream, type DayClaimEvent } from '../../src/domain/appointments/day-claim.events.ts'
import { calendarSyncStream, type CalendarSyncEvent } from '../../src/domain/calendar-sync/calendar-sync.events.ts'

export const ACCOUNT = 'acc_audit0000000000a'
export const OTHER_ACCOUNT = 'acc_audit0000000000b'
export const PHONE = '3125550142'
export const STREAM = `lead-${ACCOUNT}-${PHONE}`
export const ACCOUNT_STREAM = `account-${ACCOUNT}`
export const TOKEN_ID = 'wht_audit00000000000a'
export const KEY_ID = 'key_audit00000000000a'
export const RECORDING_URL = 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE123'
export const TRANSCRIPT = 'Hi, this is Jane, please call me back about the roof'
/** The first event of the story is recorded at this instant; each later append one minute on. */
export const START = Date.parse('2026-03-10T15:00:00.000Z')

export const webhook: Actor = { kind: 'webhook_token', id: TOKEN_ID }
export const operator: Actor = { kind: 'operator', id: 'auditor' }
const apiKey: Actor = { kind: 'api_key', id: KEY_ID }
const dialer: Actor = { kind: 'process', id: 'dialer' }
const texter: Actor = { kind: 'process', id: 'texter' }
const missedCallText: Actor = { kind: 'process', id: 'missed-call-text' }
const speedToLead: Actor = { kind: 'process', id: 'speed-to-lead' }
const carrier: Actor = { kind: 'carrier', id: 'twilio' }
const payments: Actor = { kind: 'payments', id: 'stripe' }

type AnyEvent = AccountEvent | LeadEvent | IdempotencyEvent | UserEvent | OwnerAlertEvent | { type: string; data: unknown }

export function newEvent(event: AnyEvent, actor: Actor, schemaVersion = schemaVersionOf(event.type)): NewEvent {
  return { type: event.type, data: event.data, metadata: { correlationId: 'corr-audit', causationId: null, actor, schemaVersion } }
}

const fields = {
  phone: `+1${PHONE}`,
  phoneLast10: PHONE,
  phoneRaw: '(312) 555-0142',
  fullName: 'Jane Doe',
  firstName: 'Jane',
  lastName: 'Doe',
  email: 'jane@example.com',
  state: 'IL',
  source: 'Spring FB',
  industryFields: { roof_type: 'tile' },
  extraFields: [{ name: 'favourite colour', value: 'blue' }],
}

const d1 = 'dec_1'
const d2 = 'dec_2'

/** The lead's story, one append per entry (each one minute after the previous one). */
export const LEAD_STORY: ReadonlyArray<readonly [AnyEvent, Actor]> = [
  [{ type: 'LeadReceived', data: { leadId: 'ld_audit0000000000a', accountId: ACCOUNT, fields, receivedAt: '2026-03-10T15:01:00.000Z' } }, webhook],
  [{ type: 'LeadAddedToList', data: { leadId: 'ld_audit0000000000a', listId: 'inbound-leads', listName: 'Inbound Leads' } }, webhook],
  [{ type: 'SpeedToLeadSkipped', data: { leadId: 'ld_audit0000000000a', reason: 'outside_calling_hours', message: 'outside the account calling hours', nextAllowedAt: '2026-03-11T13:00:00.000Z', skippedAt: '2026-03-10T15:03:00.000Z' } }, speedToLead],
  [{ type: 'CallDecided', data: { leadId: 'ld_audit0000000000a', decisionId: d1, purpose: 'place_call', attempt: 1, from: '+15125550100', to: `+1${PHONE}`, decidedAt: '2026-03-10T15:04:00.000Z', idempotencyKey: 'idem-1' } }, apiKey],
  [{ type: 'CallAttemptStarted', data: { decisionId: d1, node: 'node-1', startedAt: '2026-03-10T15:05:00.000Z' } }, dialer],
  [{ type: 'CallPlaced', data: { decisionId: d1, callId: 'CA111', carrier: 'twilio', placedAt: '2026-03-10T15:06:00.000Z' } }, dialer],
  [{ type: 'CallRecordingAvailable', data: { decisionId: d1, callId: 'CA111', recordingUrl: RECORDING_URL, at: '2026-03-10T15:07:00.000Z' } }, carrier],
  [{ type: 'CallTranscriptAvailable', data: { decisionId: d1, callId: 'CA111', transcript: TRANSCRIPT, at: '2026-03-10T15:08:00.000Z' } }, carrier],
  [{ type: 'CallNotAnswered', data: { decisionId: d1, callId: 'CA111', status: 'no-answer', at: '2026-03-10T15:09:00.000Z' } }, carrier],
  [{ type: 'FollowUpScheduled', data: { leadId: 'ld_audit0000000000a', attempt: 2, dueAt: '2026-03-10T15:20:00.000Z', afterDecisionId: d1 } }, carrier],
  [{ type: 'FollowUpRescheduled', data: { attempt: 2, dueAt: '2026-03-10T16:00:00.000Z', reason: 'daily_limit', message: 'at most 3 attempts in any 24 hours' } }, dialer],
  [{ type: 'CallDecided', data: { leadId: 'ld_audit0000000000a', decisionId: d2, purpose: 'follow_up', attempt: 2, from: '+15125550100', to: `+1${PHONE}`, decidedAt: '2026-03-10T16:00:00.000Z', idempotencyKey: null } }, dialer],
  [{ type: 'CallAttemptStarted', data: { decisionId: d2, node: 'node-2', startedAt: '2026-03-10T16:00:01.000Z' } }, dialer],
  [{ type: 'CallFailed', data: { decisionId: d2, failure: 'carrier_rejected', message: 'number unreachable', carrierCode: 21211, failedAt: '2026-03-10T16:00:02.000Z' } }, dialer],
  [{ type: 'CallOutcomeUnknown', data: { decisionId: d2, reason: 'attempt timed out', at: '2026-03-10T16:01:00.000Z' } }, dialer],
  [{ type: 'CallAnswered', data: { decisionId: d1, callId: 'CA111', answeredBy: 'human', at: '2026-03-10T16:02:00.000Z' } }, carrier],
  [{ type: 'CallCompleted', data: { decisionId: d1, callId: 'CA111', durationSeconds: 42, at: '2026-03-10T16:03:00.000Z' } }, carrier],
  [{ type: 'FollowUpStopped', data: { reason: 'answered', message: 'the lead answered', at: '2026-03-10T16:03:00.000Z' } }, carrier],
  [{ type: 'LeadUpdated', data: { leadId: 'ld_audit0000000000a', changes: { email: 'jane@new.example.com', state: 'TX' }, industryFields: {}, extraFields: [], updatedAt: '2026-03-10T16:04:00.000Z' } }, webhook],
  [{ type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_audit0000000000a', markedAt: '2026-03-10T16:05:00.000Z' } }, apiKey],
  [{ type: 'LeadDoNotCallCleared', data: { leadId: 'ld_audit0000000000a', clearedAt: '2026-03-10T16:06:00.000Z' } }, operator],
  // Pay-links: one settled, one the provider refused, one whose text failed and payment failed, one unknown and expired.
  ...payLink('pay_1', 5000, [
    ['PayLinkCreated', { sessionId: 'cs_1', url: 'https://checkout.stripe.com/c/pay/cs_1', expiresAt: '2026-03-11T16:07:00.000Z', provider: 'stripe', at: '2026-03-10T16:07:01.000Z' }, payments],
    ['PayLinkTextAttempted', { node: 'node-1', from: '+15125550100', to: `+1${PHONE}`, body: 'Pay here: https://checkout.stripe.com/c/pay/cs_1', at: '2026-03-10T16:07:02.000Z' }, dialer],
    ['PayLinkTexted', { messageId: 'SM1', carrier: 'twilio', at: '2026-03-10T16:07:03.000Z' }, dialer],
    ['PaymentSettled', { sessionId: 'cs_1', amountCents: 5000, currency: 'usd', paymentIntentId: 'pi_1', provider: 'stripe', providerEventId: 'evt_1', at: '2026-03-10T16:10:00.000Z' }, payments],
  ]),
  ...payLink('pay_2', 1999, [['PayLinkFailed', { failure: 'stripe_error', message: 'account cannot take charges', providerCode: 'account_invalid', at: '2026-03-10T16:11:00.000Z' }, payments]]),
  ...payLink('pay_3', 2500, [
    ['PayLinkCreated', { sessionId: 'cs_3', url: 'https://checkout.stripe.com/c/pay/cs_3', expiresAt: '2026-03-11T16:12:00.000Z', provider: 'stripe', at: '2026-03-10T16:12:00.000Z' }, payments],
    ['PayLinkTextAttempted', { node: 'node-1', from: '+15125550100', to: `+1${PHONE}`, body: 'Pay here', at: '2026-03-10T16:12:01.000Z' }, dialer],
    ['PayLinkTextFailed', { failure: 'carrier_rejected', message: 'not a mobile number', carrierCode: 21614, at: '2026-03-10T16:12:02.000Z' }, dialer],
    ['PaymentFailed', { sessionId: 'cs_3', provider: 'stripe', providerEventId: 'evt_3', at: '2026-03-10T16:13:00.000Z' }, payments],
  ]),
  ...payLink('pay_4', 2500, [
    ['PayLinkCreated', { sessionId: 'cs_4', url: 'https://checkout.stripe.com/c/pay/cs_4', expiresAt: '2026-03-11T16:14:00.000Z', provider: 'stripe', at: '2026-03-10T16:14:00.000Z' }, payments],
    ['PayLinkTextAttempted', { node: 'node-2', from: '+15125550100', to: `+1${PHONE}`, body: 'Pay here', at: '2026-03-10T16:14:01.000Z' }, dialer],
    ['PayLinkTextOutcomeUnknown', { reason: 'the node stopped before the carrier answered', at: '2026-03-10T16:15:00.000Z' }, dialer],
    ['PaymentLinkExpired', { sessionId: 'cs_4', provider: 'stripe', providerEventId: 'evt_4', at: '2026-03-11T16:14:00.000Z' }, payments],
  ]),
  // Issue #26: a machine and its voicemail, then a person and the menu.
  [{ type: 'CallReachedMachine', data: { decisionId: d1, callId: 'CA111', answeredBy: 'machine_end_beep', at: '2026-03-11T16:15:10.000Z' } }, carrier],
  [{ type: 'VoicemailStarted', data: { decisionId: d1, callId: 'CA111', node: 'node-1', message: 'text', at: '2026-03-11T16:15:11.000Z' } }, carrier],
  [{ type: 'VoicemailLeft', data: { decisionId: d1, callId: 'CA111', at: '2026-03-11T16:15:12.000Z' } }, carrier],
  [{ type: 'VoicemailFailed', data: { decisionId: d1, callId: 'CA111', failure: 'unknown_outcome', message: 'the carrier did not answer', at: '2026-03-11T16:15:13.000Z' } }, carrier],
  [{ type: 'VoicemailSkipped', data: { decisionId: d1, callId: 'CA111', reason: 'voicemail_limit', message: 'at most 1 voicemail to one lead in any 24 hours', at: '2026-03-11T16:15:14.000Z' } }, carrier],
  [{ type: 'MenuKeyPressed', data: { decisionId: d1, callId: 'CA111', digit: '1', choice: 'connect', at: '2026-03-11T16:15:15.000Z' } }, carrier],
  [{ type: 'OwnerConnectEnded', data: { decisionId: d1, connected: true, status: 'completed', at: '2026-03-11T16:15:16.000Z' } }, carrier],
  [{ type: 'CallbackRequested', data: { decisionId: d1, callbackAt: '2026-03-11T17:15:17.000Z', at: '2026-03-11T16:15:17.000Z' } }, carrier],
  // Agent-first: owner number 1 declines, owner number 2 presses 1 and the lead is dialed.
  [{ type: 'AgentUnavailable', data: { decisionId: d1, callId: 'CA111', leg: 0, reason: 'declined', message: 'the owner pressed 2, not 1', nextLeg: 1, at: '2026-03-11T16:15:18.000Z' } }, carrier],
  [{ type: 'OwnerLegStarted', data: { decisionId: d1, leg: 1, to: '+15125550199', node: 'node-1', at: '2026-03-11T16:15:18.000Z' } }, carrier],
  [{ type: 'LeadDialStarted', data: { decisionId: d1, callId: 'CA222', leg: 1, to: `+1${PHONE}`, at: '2026-03-11T16:15:19.000Z' } }, carrier],
  // A submission with the same last ten digits and another country code: the lead keeps its number.
  [{ type: 'LeadPhoneConflict', data: { leadId: 'ld_audit0000000000a', storedPhone: `+1${PHONE}`, receivedPhone: `+52${PHONE}`, receivedRaw: `+52 ${PHONE}`, source: 'webhook', kept: true, message: `the submission's number +52${PHONE} differs from the lead's +1${PHONE}; the lead keeps +1${PHONE}`, at: '2026-03-11T16:15:00.000Z' } }, webhook],
  // Issue #27: the lead texts back (a reply: its TextReceived left out here), then STOP to the account's number; the one confirmation is claimed, then sent.
  [{ type: 'LeadReplied', data: { leadId: 'ld_audit0000000000a', messageId: 'SM110', repliedAt: '2026-03-11T16:15:50.000Z' } }, carrier],
  [{ type: 'TextReceived', data: { leadId: 'ld_audit0000000000a', messageId: 'SM111', from: `+1${PHONE}`, to: '+15125550100', transcript: 'Stop.', keyword: 'opt_out', carrier: 'twilio', receivedAt: '2026-03-11T16:16:00.000Z' } }, carrier],
  [{ type: 'TextReplyClaimed', data: { leadId: 'ld_audit0000000000a', replyTo: 'SM111', kind: 'opt_out_confirmation', from: '+15125550100', to: `+1${PHONE}`, body: 'Acme: you are unsubscribed', node: 'node-1', at: '2026-03-11T16:16:00.000Z' } }, carrier],
  [{ type: 'TextReplySent', data: { leadId: 'ld_audit0000000000a', replyTo: 'SM111', messageId: 'SM222', carrier: 'twilio', at: '2026-03-11T16:16:01.000Z' } }, carrier],
  [{ type: 'TextReplyFailed', data: { leadId: 'ld_audit0000000000a', replyTo: 'SM333', failure: 'unknown_outcome', message: 'the carrier did not answer', at: '2026-03-11T16:16:02.000Z' } }, carrier],
  // Issue #44: the owner opened the lead's conversation in the console (how many texts were new; never what they said).
  [{ type: 'ConversationRead', data: { leadId: 'ld_audit0000000000a', throughMessageId: 'SM111', unread: 1, at: '2026-03-11T16:16:02.500Z' } }, { kind: 'user', id: 'usr_audit00000000b' }],
  // Issue #40: STOP from another full number with the lead's last ten digits (its TextReceived left out here) suppresses that number only; the operator clears it.
  [{ type: 'NumberSuppressed', data: { leadId: 'ld_audit0000000000a', phone: `+44${PHONE}`, source: 'sms_keyword', messageId: 'SM112', at: '2026-03-11T16:16:03.000Z' } }, carrier],
  [{ type: 'NumberSuppressionCleared', data: { leadId: 'ld_audit0000000000a', phone: `+44${PHONE}`, at: '2026-03-11T16:16:04.000Z' } }, operator],
  // send_sms: one text sent through a Messaging Service, one the carrier refused, one whose outcome is unknown.
  [{ type: 'TextDecided', data: { leadId: 'ld_audit0000000000a', textId: 'txt_1', reason: 'send_sms', from: '+15125550100', to: `+1${PHONE}`, body: 'Your roof inspection is booked for Friday.\nReply STOP to opt out.', messagingService: `MG${'a'.repeat(32)}`, segments: 1, idempotencyKey: 'idem-txt-1', at: '2026-03-11T16:17:00.000Z' } }, apiKey],
  [{ type: 'TextAttemptStarted', data: { textId: 'txt_1', node: 'node-1', at: '2026-03-11T16:17:01.000Z' } }, texter],
  [{ type: 'TextSent', data: { textId: 'txt_1', messageId: 'SM444', carrier: 'twilio', at: '2026-03-11T16:17:02.000Z' } }, texter],
  [{ type: 'TextDelivered', data: { textId: 'txt_1', messageId: 'SM444', status: 'undelivered', errorCode: 30003, at: '2026-03-11T16:17:02.500Z' } }, carrier],
  [{ type: 'TextFailed', data: { textId: 'txt_2', failure: 'rejected', message: 'not a mobile number', carrierCode: 21614, at: '2026-03-11T16:17:03.000Z' } }, texter],
  [{ type: 'TextOutcomeUnknown', data: { textId: 'txt_3', reason: 'the node stopped before the carrier answered', at: '2026-03-11T16:17:04.000Z' } }, texter],
  // Issue #43: the lead calls the account's number twice: the first call an owner takes; the second nobody does (a call-back key, a voicemail with no URL).
  [{ type: 'InboundCallReceived', data: { leadId: 'ld_audit0000000000a', callId: 'CA0000000000000000000000000000aud0', from: `+1${PHONE}`, to: '+15125550100', newLead: false, withinBusinessHours: true, route: 'owners', at: '2026-03-11T16:16:10.000Z' } }, carrier],
  [{ type: 'InboundCallConnected', data: { callId: 'CA0000000000000000000000000000aud0', by: 'owner', leg: 0, ownerNumber: '+15125550199', at: '2026-03-11T16:16:20.000Z' } }, carrier],
  [{ type: 'InboundCallEnded', data: { callId: 'CA0000000000000000000000000000aud0', status: 'completed', durationSeconds: 95, at: '2026-03-11T16:17:55.000Z' } }, carrier],
  [{ type: 'InboundCallReceived', data: { leadId: 'ld_audit0000000000a', callId: 'CA0000000000000000000000000000aud1', from: `+1${PHONE}`, to: '+15125550100', newLead: false, withinBusinessHours: false, route: 'voicemail', at: '2026-03-11T16:16:50.000Z' } }, carrier],
  [{ type: 'InboundCallMissed', data: { callId: 'CA0000000000000000000000000000aud1', reason: 'outside_business_hours', callbackRequested: false, at: '2026-03-11T16:16:58.000Z' } }, carrier],
  [{ type: 'InboundCallbackRequested', data: { callId: 'CA0000000000000000000000000000aud1', at: '2026-03-11T16:16:59.000Z' } }, carrier],
  [{ type: 'InboundVoicemailLeft', data: { callId: 'CA0000000000000000000000000000aud1', durationSeconds: 14, at: '2026-03-11T16:17:20.000Z' } }, carrier],
  // The missed-call text-back (issue #43): one decided for a missed call, one skipped with why.
  [{ type: 'MissedCallTextSent', data: { callId: 'CA0000000000000000000000000000aud1', textId: 'txt_1', missedAt: '2026-03-11T16:16:58.000Z', at: '2026-03-11T16:17:00.000Z' } }, missedCallText],
  [{ type: 'MissedCallTextSkipped', data: { callId: 'CA0000000000000000000000000000aud2', reason: 'already_texted_back', message: 'the caller was texted back after a missed call in the last 24 hours', missedAt: '2026-03-11T16:18:00.000Z', at: '2026-03-11T16:18:01.000Z' } }, missedCallText],
  // Issue #30: an agent's note, edit, callback and pause of the cadence.
  [{ type: 'NoteAdded', data: { leadId: 'ld_audit0000000000a', noteId: 'note_1', text: 'Prefers mornings; ask about the skylight.', author: apiKey, at: '2026-03-11T16:18:00.000Z' } }, apiKey],
  [{ type: 'LeadEdited', data: { leadId: 'ld_audit0000000000a', changes: {}, customFields: [{ name: 'roof_age', value: '12' }], editedAt: '2026-03-11T16:19:00.000Z' } }, apiKey],
  [{ type: 'CallbackScheduled', data: { leadId: 'ld_audit0000000000a', callbackAt: '2026-03-12T15:00:00.000Z', replacedDueAt: null, at: '2026-03-11T16:20:00.000Z' } }, apiKey],
  [{ type: 'FollowUpPaused', data: { leadId: 'ld_audit0000000000a', at: '2026-03-11T16:21:00.000Z' } }, apiKey],
  [{ type: 'FollowUpResumed', data: { leadId: 'ld_audit0000000000a', at: '2026-03-11T16:22:00.000Z' } }, apiKey],
  // Issue #29: the voice assistant's call: an answer it recorded, the transcript (kept, never shown), how it ended.
  [{ type: 'AssistantFallbackStarted', data: { decisionId: d1, to: `+1${PHONE}`, node: 'node-1', at: '2026-03-11T16:22:30.000Z' } }, { kind: 'process', id: 'dialer' }],
  [{ type: 'AssistantAnswerRecorded', data: { decisionId: d1, question: 'How old is the roof?', answer: 'about twelve years', at: '2026-03-11T16:23:00.000Z' } }, { kind: 'process', id: 'assistant' }],
  [{ type: 'AssistantTranscriptRecorded', data: { decisionId: d1, callId: 'CA1', transcript: [{ speaker: 'lead', text: TRANSCRIPT, at: '2026-03-11T16:23:00.000Z' }], at: '2026-03-11T16:24:00.000Z' } }, { kind: 'process', id: 'assistant' }],
  [{ type: 'AssistantCallEnded', data: { decisionId: d1, callId: 'CA1', disposition: 'qualified', answers: [{ question: 'How old is the roof?', answer: 'about twelve years' }], callbackAt: null, why: null, provider: 'scripted', turns: 3, endedAt: '2026-03-11T16:24:00.000Z' } }, { kind: 'process', id: 'assistant' }],
  // A type of a later build, unknown to this one: a generic summary that leaves its URL out.
  [{ type: 'LeadScored', data: { leadId: 'ld_audit0000000000a', score: 87, hot: true, reportUrl: 'https://scores.example.com/secret' } }, { kind: 'process', id: 'scoring' }],
]

/** The log's record of a restore, on a stream of its own. */
export const RESTORE_STORY: readonly LogRestoreEvent[] = [{ type: 'LogRestored', data: { backupHead: 40, backupEvents: 40, restoredAt: '2026-03-11T16:24:30.000Z' } }]

function payLink(requestId: string, amountCents: number, then: ReadonlyArray<readonly [string, Record<string, unknown>, Actor]>): Array<readonly [AnyEvent, Actor]> {
  const requested: LeadEvent = {
    type: 'PaymentRequested',
    data: {
      leadId: 'ld_audit0000000000a', requestId, amountCents, currency: 'usd', description: 'Roof inspection deposit', connectedAccount: 'acct_1', provider: 'stripe',
      idempotencyKey: `idem-${requestId}`, providerIdempotencyKey: `${ACCOUNT}-idem-${requestId}`, from: '+15125550100', to: `+1${PHONE}`, requestedAt: '2026-03-10T16:07:00.000Z',
    },
  }
  return [[requested, apiKey], ...then.map(([type, data, actor]) => [{ type, data: { requestId, ...data } }, actor] as const)]
}

export const ACCOUNT_STORY: ReadonlyArray<readonly [AccountEvent, Actor]> = [
  [{ type: 'AccountCreated', data: { accountId: ACCOUNT, name: 'Acme Roofing', settings: { ...DEFAULT_SETTINGS, timeZone: 'America/Chicago' }, createdAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'WebhookTokenIssued', data: { tokenId: TOKEN_ID, tokenHash: 'a'.repeat(64), hint: 'llwh_abcd…', issuedAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'ApiKeyCreated', data: { keyId: KEY_ID, keyHash: 'b'.repeat(64), hint: 'll_live_abcd…', scopes: ['read', 'dial'], label: 'agent', createdAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'AccountSettingsChanged', data: { changes: { speedToLead: true, callingHours: 'mon-fri 08:00-20:00' } } }, operator],
  [{ type: 'WebhookTokenRevoked', data: { tokenId: 'wht_old0000000000000', reason: 'rotated', revokedAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'ApiKeyRevoked', data: { keyId: 'key_old0000000000000', revokedAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'GoogleKeySet', data: { keyHash: 'd'.repeat(64), salt: 'e'.repeat(32), setAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'SourceFieldMapSet', data: { source: 'vendor-x', mappings: [{ field: 'phone', path: 'contact.primary.number' }], setAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'SourceFieldMapRemoved', data: { source: 'vendor-x', removedAt: '2026-03-10T15:00:00.000Z' } }, operator],
  [{ type: 'GoogleKeyCleared', data: { clearedAt: '2026-03-10T15:00:00.000Z' } }, operator],
]

export const IDEMPOTENCY_STORY: ReadonlyArray<readonly [IdempotencyEvent, Actor]> = [
  [{ type: 'IdempotencyKeyClaimed', data: { tool: 'place_call', argsHash: 'c'.repeat(64), keyId: KEY_ID, claimedAt: '2026-03-10T15:04:00.000Z', expiresAt: '2026-03-11T15:04:00.000Z' } }, apiKey],
  [{ type: 'IdempotencyResultRecorded', data: { recordedAt: '2026-03-10T15:04:01.000Z', error: { code: 'outside_calling_hours', message: 'outside calling hours' } } }, apiKey],
]

/** The other account's console owner: every user and session event, once. */
export const USER_STREAM = `user-${OTHER_ACCOUNT}-usr_audit00000000b`
export const USER_STORY: ReadonlyArray<readonly [UserEvent, Actor]> = [
  [{ type: 'UserCreated', data: { userId: 'usr_audit00000000b', accountId: OTHER_ACCOUNT, email: 'owner@other.example.com', role: 'owner', createdAt: '2026-03-10T16:40:00.000Z' } }, operator],
  [{ type: 'PasswordSetupIssued', data: { setupId: 'pws_audit000000000b', tokenHash: 'e'.repeat(64), issuedAt: '2026-03-10T16:40:00.000Z', expiresAt: '2026-03-11T16:40:00.000Z' } }, operator],
  [{ type: 'PasswordSet', data: { setupId: 'pws_audit000000000b', passwordHash: 'scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA', setAt: '2026-03-10T16:41:00.000Z' } }, { kind: 'user', id: 'usr_audit00000000b' }],
  [{ type: 'SignedIn', data: { sessionId: 'ses_audit000000000b', tokenHash: 'f'.repeat(64), signedInAt: '2026-03-10T16:42:00.000Z', expiresAt: '2026-03-17T16:42:00.000Z' } }, { kind: 'user', id: 'usr_audit00000000b' }],
  [{ type: 'SessionRenewed', data: { sessionId: 'ses_audit000000000b', renewedAt: '2026-03-10T18:00:00.000Z' } }, { kind: 'user', id: 'usr_audit00000000b' }],
  [{ type: 'SignedOut', data: { sessionId: 'ses_audit000000000b', signedOutAt: '2026-03-10T18:05:00.000Z' } }, { kind: 'user', id: 'usr_audit00000000b' }],
  [{ type: 'SessionRevoked', data: { sessionId: 'ses_audit000000000c', reason: 'password_set', revokedAt: '2026-03-10T18:06:00.000Z' } }, { kind: 'user', id: 'usr_audit00000000b' }],
]

/** A third account's Facebook page and one lead fetched through a failure: every Facebook event type, once. */
export const FACEBOOK_ACCOUNT = 'acc_audit0000000000c'
const facebook: Actor = { kind: 'lead_source', id: 'facebook' }
const fetcher: Actor = { kind: 'process', id: 'facebook-lead-fetcher' }
export const FACEBOOK_PAGE_STORY: ReadonlyArray<readonly [{ type: string; data: unknown }, Actor]> = [
  [{ type: 'FacebookPageConnected', data: { pageId: '104000000000001', accountId: FACEBOOK_ACCOUNT, pageTokenSealed: 'llsealed1.00000000.AAAA.AAAA.AAAA', replaced: false, connectedAt: '2026-03-10T16:50:00.000Z' } }, operator],
  [{ type: 'FacebookPageDisconnected', data: { pageId: '104000000000001', accountId: FACEBOOK_ACCOUNT, disconnectedAt: '2026-03-10T18:10:00.000Z' } }, operator],
]
/** The account's caller ID, claimed and then released: every number claim event type, once. */
export const NUMBER_CLAIM_STORY: ReadonlyArray<readonly [{ type: string; data: unknown }, Actor]> = [
  [{ type: 'NumberClaimed', data: { sender: '+13125550100', kind: 'phone_number', accountId: ACCOUNT, use: 'caller_id', carrierHolds: 'incoming_number', claimedAt: '2026-03-10T16:40:00.000Z' } }, operator],
  [{ type: 'NumberReleased', data: { sender: '+13125550100', accountId: ACCOUNT, reason: 'replaced', releasedAt: '2026-03-10T18:20:00.000Z' } }, operator],
]
/** A number bought for the account, and another whose first purchase failed and whose second had no answer: every purchase event type. */
export const NUMBER_PURCHASE_STORIES: ReadonlyArray<readonly [string, ReadonlyArray<NumberPurchaseEvent>]> = [
  ['numberpurchase-+13125550100', [
    { type: 'NumberPurchaseDecided', data: { purchaseId: 'npu_audit1', number: '+13125550100', accountId: ACCOUNT, carrier: 'twilio', monthlyPrice: { amount: '1.15', currency: 'USD' }, decidedAt: '2026-03-10T16:35:00.000Z' } },
    { type: 'NumberPurchaseStarted', data: { purchaseId: 'npu_audit1', number: '+13125550100', node: 'node-1', startedAt: '2026-03-10T16:35:00.100Z' } },
    { type: 'NumberPurchased', data: { purchaseId: 'npu_audit1', number: '+13125550100', accountId: ACCOUNT, carrier: 'twilio', carrierSid: `PN${'0'.repeat(32)}`, purchasedAt: '2026-03-10T16:35:01.000Z' } },
  ]],
  ['numberpurchase-+13125550181', [
    { type: 'NumberPurchaseDecided', data: { purchaseId: 'npu_audit2', number: '+13125550181', accountId: ACCOUNT, carrier: 'twilio', monthlyPrice: null, decidedAt: '2026-03-10T16:36:00.000Z' } },
    { type: 'NumberPurchaseStarted', data: { purchaseId: 'npu_audit2', number: '+13125550181', node: 'node-1', startedAt: '2026-03-10T16:36:00.100Z' } },
    { type: 'NumberPurchaseFailed', data: { purchaseId: 'npu_audit2', number: '+13125550181', failure: 'rejected', message: 'twilio rejected the number purchase (HTTP 400, code 21422)', carrierCode: 21422, at: '2026-03-10T16:36:01.000Z' } },
    { type: 'NumberPurchaseDecided', data: { purchaseId: 'npu_audit3', number: '+13125550181', accountId: ACCOUNT, carrier: 'twilio', monthlyPrice: null, decidedAt: '2026-03-10T16:37:00.000Z' } },
    { type: 'NumberPurchaseStarted', data: { purchaseId: 'npu_audit3', number: '+13125550181', node: 'node-1', startedAt: '2026-03-10T16:37:00.100Z' } },
    { type: 'NumberPurchaseOutcomeUnknown', data: { purchaseId: 'npu_audit3', number: '+13125550181', reason: 'no answer from twilio within 10000 ms; the number purchase may have been placed', at: '2026-03-10T16:37:10.000Z' } },
  ]],
]
export const FACEBOOK_LEAD_STORY: ReadonlyArray<readonly [{ type: string; data: unknown }, Actor]> = [
  [{ type: 'FacebookLeadNotified', data: { accountId: FACEBOOK_ACCOUNT, leadgenId: '900000000000001', pageId: '104000000000001', formId: '1200000000000001', adId: null, createdTime: '2026-03-10T16:59:00.000Z', notifiedAt: '2026-03-10T17:00:00.000Z' } }, facebook],
  [{ type: 'FacebookLeadFetchDue', data: { leadgenId: '900000000000001', fetchId: 'fbf_audit00000000001', attempt: 1, reason: 'notified', dueAt: '2026-03-10T17:00:00.000Z' } }, facebook],
  [{ type: 'FacebookLeadFetchStarted', data: { leadgenId: '900000000000001', fetchId: 'fbf_audit00000000001', node: 'host:1', startedAt: '2026-03-10T17:00:00.000Z' } }, fetcher],
  [{ type: 'FacebookLeadFetchFailed', data: { leadgenId: '900000000000001', fetchId: 'fbf_audit00000000001', failure: 'graph_unavailable', message: 'Service temporarily unavailable', httpStatus: 500, graphCode: 2, willRetry: true, at: '2026-03-10T17:00:01.000Z' } }, fetcher],
  [{ type: 'FacebookLeadFetchDue', data: { leadgenId: '900000000000001', fetchId: 'fbf_audit00000000002', attempt: 2, reason: 'retry', dueAt: '2026-03-10T17:00:02.000Z' } }, fetcher],
  [{ type: 'FacebookLeadFetchStarted', data: { leadgenId: '900000000000001', fetchId: 'fbf_audit00000000002', node: 'host:1', startedAt: '2026-03-10T17:00:02.000Z' } }, fetcher],
  [{ type: 'FacebookLeadReceived', data: { leadgenId: '900000000000001', fetchId: 'fbf_audit00000000002', leadId: 'ld_audit0000000000c', created: true, at: '2026-03-10T17:00:03.000Z' } }, fetcher],
]
/** The other account's outbound events subscription: its secret only ever sealed (this one is a made-up sealed value). */
export const SEALED_SECRET = 'llsealed1.0a1b2c3d.bm9uY2UtYXVkaXQ.Y2lwaGVydGV4dA.dGFnLXRhZy10YWctdGFn'
export const OTHER_ACCOUNT_STORY: ReadonlyArray<readonly [AccountEvent, Actor]> = [
  [{ type: 'EventsSubscribed', data: { subscriptionId: 'sub_audit00000000b', url: 'https://crm.example.com/hooks', types: ['lead.received', 'call.answered'], sealedSecret: SEALED_SECRET, secretHint: 'whsec_abcd…', subscribedAt: '2026-03-10T16:43:00.000Z' } }, operator],
  [{ type: 'EventsSecretRotated', data: { subscriptionId: 'sub_audit00000000b', sealedSecret: SEALED_SECRET, secretHint: 'whsec_efgh…', rotatedAt: '2026-03-10T16:44:00.000Z' } }, operator],
  [{ type: 'EventsUnsubscribed', data: { subscriptionId: 'sub_audit00000000b', unsubscribedAt: '2026-03-10T16:45:00.000Z' } }, operator],
  [{ type: 'OAuthGrantCreated', data: { grantId: 'grant_audit0000000b', clientId: 'client_audit', clientName: 'Claude', userId: 'usr_audit00000000b', scopes: ['read'], createdAt: '2026-03-10T16:46:00.000Z' } }, operator],
  [{ type: 'OAuthGrantRevoked', data: { grantId: 'grant_audit0000000b', reason: 'owner', revokedAt: '2026-03-10T16:47:00.000Z' } }, operator],
  // A calendar connected (its credentials only ever sealed), an appointment type saved and removed, the calendar disconnected.
  [{ type: 'CalendarConnected', data: { provider: 'caldav', label: 'owner at cal.example', sealedCredentials: SEALED_SECRET, calendars: [{ id: 'https://cal.example/owner/jobs/', name: 'Jobs', timeZone: 'America/Chicago' }], connectedAt: '2026-03-10T16:48:00.000Z' } }, operator],
  [{ type: 'AppointmentTypeSaved', data: { type: { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 15, bookableHours: null, minimumNoticeMinutes: 120, maxPerDay: 4, calendarId: 'https://cal.example/owner/jobs/' }, savedAt: '2026-03-10T16:48:30.000Z' } }, operator],
  [{ type: 'AppointmentTypeRemoved', data: { typeId: 'estimate', removedAt: '2026-03-10T16:49:00.000Z' } }, operator],
  [{ type: 'CalendarDisconnected', data: { disconnectedAt: '2026-03-10T16:49:30.000Z' } }, operator],
]

/** Two owner alerts of the other account: one texted, one the carrier refused. */
export const ALERT_STORIES: ReadonlyArray<readonly [string, ReadonlyArray<OwnerAlertEvent>]> = [
  [`alert-${OTHER_ACCOUNT}-evt_audit_alert_1`, [
    { type: 'OwnerAlertClaimed', data: { eventId: 'evt_audit_alert_1', kind: 'new_lead', leadStream: `lead-${OTHER_ACCOUNT}-${PHONE}`, from: '+15125550100', to: '+15125550199', body: 'Leadline: new lead Other Person +13125550142', node: 'node-1', at: '2026-03-10T16:30:01.000Z' } },
    { type: 'OwnerAlertSent', data: { eventId: 'evt_audit_alert_1', messageId: 'SM1', carrier: 'twilio', at: '2026-03-10T16:30:02.000Z' } },
  ]],
  [`alert-${OTHER_ACCOUNT}-evt_audit_alert_2`, [
    { type: 'OwnerAlertClaimed', data: { eventId: 'evt_audit_alert_2', kind: 'replied', leadStream: `lead-${OTHER_ACCOUNT}-${PHONE}`, from: '+15125550100', to: '+15125550199', body: 'Leadline: Other Person +13125550142 replied by text (read it in the console)', node: 'node-1', at: '2026-03-10T16:31:01.000Z' } },
    { type: 'OwnerAlertFailed', data: { eventId: 'evt_audit_alert_2', failure: 'rejected', message: 'the number is not a mobile', at: '2026-03-10T16:31:02.000Z' } },
  ]],
]

/** The OAuth authorization server's records: a refresh token saved, used and removed, and a grant's records revoked. */
export const OAUTH_RECORD_STORIES: ReadonlyArray<readonly [string, ReadonlyArray<OAuthRecordEvent>]> = [
  [oauthRecordStream('RefreshToken', 'audit-refresh-token'), [
    { type: 'OAuthRecordSaved', data: { model: 'RefreshToken', payload: { kind: 'RefreshToken', grantId: 'grant_audit0000000b', accountId: OTHER_ACCOUNT }, uid: null, expiresAt: 1775000000, at: '2026-03-10T16:46:01.000Z' } },
    { type: 'OAuthRecordConsumed', data: { model: 'RefreshToken', consumedAt: 1773161400 } },
    { type: 'OAuthRecordDestroyed', data: { model: 'RefreshToken', at: '2026-03-10T16:47:00.000Z' } },
  ]],
  [oauthGrantRecordsStream('grant_audit0000000b'), [{ type: 'OAuthGrantRecordsRevoked', data: { at: '2026-03-10T16:47:00.000Z' } }]],
]

export interface AuditLog {
  readonly file: string
  readonly url: string
  /** Appends after the story, at the controlled clock. */
  readonly store: SqliteEventStore
  /** Recorded time of the lead story's event at this revision. */
  recordedAt(revision: number): string
}

/** An appointment slot of the account: claimed, its calendar event written, then released by a cancellation. */
const SLOT_START = '2026-03-12T15:00:00.000Z'
const slot = { accountId: ACCOUNT, start: SLOT_START }
export const SLOT_STORY: SlotClaimEvent[] = [
  { type: 'SlotClaimed', data: { ...slot, end: '2026-03-12T16:00:00.000Z', bookingId: 'bk_audit', appointmentTypeId: 'estimate', calendarId: 'https://cal.example/owner/jobs/', claimedAt: '2026-03-10T16:50:00.000Z' } },
  { type: 'SlotEventWritten', data: { ...slot, bookingId: 'bk_audit', eventUid: 'leadline-bk_audit', etag: '"1"', alreadyThere: false, writtenAt: '2026-03-10T16:50:01.000Z' } },
  { type: 'SlotReleased', data: { ...slot, bookingId: 'bk_audit', reason: 'cancelled', releasedAt: '2026-03-10T16:55:00.000Z' } },
]
/** The same booking's place on its day (at most 4 estimates a day), taken and given back. */
const DAY = { accountId: ACCOUNT, appointmentTypeId: 'estimate', day: '2026-03-12' }
export const DAY_STORY: DayClaimEvent[] = [
  { type: 'DayPlaceClaimed', data: { ...DAY, bookingId: 'bk_audit', maxPerDay: 4, claimedAt: '2026-03-10T16:50:00.000Z' } },
  { type: 'DayPlaceReleased', data: { ...DAY, bookingId: 'bk_audit', reason: 'cancelled', releasedAt: '2026-03-10T16:55:00.000Z' } },
]
/** The account's calendar sync: a token saved, the calendar refusing the app password, working again, a move onto a held slot flagged. */
export const CALENDAR_SYNC_STORY: CalendarSyncEvent[] = [
  { type: 'CalendarSyncTokenSaved', data: { accountId: ACCOUNT, connectedAt: '2026-03-10T16:40:00.000Z', calendarId: 'https://cal.example/owner/jobs/', token: 'http://radicale.org/ns/sync/1f2e', savedAt: '2026-03-10T16:51:00.000Z' } },
  { type: 'CalendarSyncFailed', data: { accountId: ACCOUNT, kind: 'unauthorized', message: 'the calendar refused the credentials reading changes', failedAt: '2026-03-10T16:52:00.000Z' } },
  { type: 'CalendarSyncRecovered', data: { accountId: ACCOUNT, recoveredAt: '2026-03-10T16:53:00.000Z' } },
  { type: 'CalendarEditConflict', data: { accountId: ACCOUNT, appointmentId: 'bk_audit', start: SLOT_START, kind: 'slot_taken', otherBookingId: 'bk_other', at: '2026-03-10T16:54:00.000Z' } },
]

/**
 * Writes the story to a new embedded log at `file`: the account, the lead (one append, one minute,
 * per event), an idempotency stream, and another account's lead. Leaves the store open.
 */
export async function writeAuditLog(file: string): Promise<AuditLog> {
  let now = START
  const store = openSqliteEventStore({ path: file, clock: () => new Date(now) })
  await store.appendToStream(ACCOUNT_STREAM, ACCOUNT_STORY.map(([event, actor]) => newEvent(event, actor)), 'no_stream')
  const times: string[] = []
  for (const [i, [event, actor]] of LEAD_STORY.entries()) {
    now = START + (i + 1) * 60_000
    times.push(new Date(now).toISOString())
    await store.appendToStream(STREAM, [newEvent(event, actor)], i === 0 ? 'no_stream' : i - 1)
  }
  now += 60_000
  await store.appendToStream(`idempotency-${ACCOUNT}-${'d'.repeat(32)}`, IDEMPOTENCY_STORY.map(([event, actor]) => newEvent(event, actor)), 'no_stream')
  await store.appendToStream(`account-${OTHER_ACCOUNT}`, [newEvent({ ...(ACCOUNT_STORY[0]?.[0] as AccountEvent), data: { ...(ACCOUNT_STORY[0]?.[0].data as object), accountId: OTHER_ACCOUNT, name: 'Other Co' } } as AccountEvent, operator)], 'no_stream')
  const otherLead: LeadEvent[] = [
    { type: 'LeadReceived', data: { leadId: 'ld_audit0000000000b', accountId: OTHER_ACCOUNT, fields: { ...fields, fullName: 'Other Person' }, receivedAt: '2026-03-10T16:30:00.000Z' } },
    { type: 'LeadAddedToList', data: { leadId: 'ld_audit0000000000b', listId: 'inbound-leads', listName: 'Inbound Leads' } },
    // After a restore from a backup: a call, a text and a pay-link the backup held as not carried out expire.
    { type: 'CallExpired', data: { decisionId: 'dec_other', reason: 'restored_from_backup', at: '2026-03-10T16:30:30.000Z' } },
    { type: 'TextExpired', data: { textId: 'txt_other', reason: 'restored_from_backup', at: '2026-03-10T16:30:30.000Z' } },
    { type: 'PaymentRequestExpired', data: { requestId: 'pay_other', reason: 'restored_from_backup', at: '2026-03-10T16:30:30.000Z' } },
    // The relay of a live assistant call connected: its one session, claimed.
    { type: 'AssistantSessionOpened', data: { decisionId: 'dec_other', callId: 'CA_other', node: 'node-1', at: '2026-03-10T16:30:40.000Z' } },
    // Two appointments: one booked, moved in the calendar and attended; one booked by the assistant, a no-show, and one cancelled.
    { type: 'AppointmentBooked', data: { leadId: 'ld_audit0000000000b', appointmentId: 'bk_other1', appointmentTypeId: 'estimate', typeName: 'Roof estimate', start: '2026-03-11T15:00:00.000Z', end: '2026-03-11T16:00:00.000Z', provider: 'caldav', calendarId: 'https://cal.example/owner/jobs/', eventUid: 'leadline-bk_other1', leadZone: 'America/Chicago', by: 'agent', idempotencyKey: 'book-1', at: '2026-03-10T16:31:00.000Z' } },
    { type: 'AppointmentRescheduled', data: { appointmentId: 'bk_other1', previousStart: '2026-03-11T15:00:00.000Z', start: '2026-03-11T17:00:00.000Z', end: '2026-03-11T18:00:00.000Z', by: 'calendar', at: '2026-03-10T16:32:00.000Z' } },
    { type: 'AppointmentAttended', data: { appointmentId: 'bk_other1', by: 'owner', at: '2026-03-11T18:05:00.000Z' } },
    { type: 'AppointmentBooked', data: { leadId: 'ld_audit0000000000b', appointmentId: 'bk_other2', appointmentTypeId: 'estimate', typeName: 'Roof estimate', start: '2026-03-12T15:00:00.000Z', end: '2026-03-12T16:00:00.000Z', provider: 'caldav', calendarId: 'https://cal.example/owner/jobs/', eventUid: 'leadline-bk_other2', leadZone: null, by: 'assistant', idempotencyKey: null, at: '2026-03-10T16:33:00.000Z' } },
    // Its texts: planned at booking, a reminder waiting for the texting window, another skipped by the rules.
    { type: 'AppointmentTextsScheduled', data: { leadId: 'ld_audit0000000000b', appointmentId: 'bk_other2', start: '2026-03-12T15:00:00.000Z', planFor: '2026-03-10T16:33:00.000Z', texts: [{ textId: 'txt_bk_other2_r1440_20260312T150000000Z', kind: 'reminder', minutesBefore: 1440, dueAt: '2026-03-11T15:00:00.000Z' }, { textId: 'txt_bk_other2_r60_20260312T150000000Z', kind: 'reminder', minutesBefore: 60, dueAt: '2026-03-12T14:00:00.000Z' }], at: '2026-03-10T16:33:00.000Z' } },
    { type: 'AppointmentTextDeferred', data: { appointmentId: 'bk_other2', textId: 'txt_bk_other2_r1440_20260312T150000000Z', kind: 'reminder', until: '2026-03-11T15:30:00.000Z', reason: 'outside_calling_hours', message: 'outside the calling hours', at: '2026-03-11T15:00:00.000Z' } },
    { type: 'AppointmentTextSkipped', data: { appointmentId: 'bk_other2', textId: 'txt_bk_other2_r60_20260312T150000000Z', kind: 'reminder', reason: 'do_not_call', message: 'the lead is do-not-call: it is never texted', at: '2026-03-12T14:00:00.000Z' } },
    { type: 'AppointmentNoShow', data: { appointmentId: 'bk_other2', by: 'owner', at: '2026-03-12T16:10:00.000Z' } },
    { type: 'AppointmentCancelled', data: { appointmentId: 'bk_other3', by: 'calendar', reason: 'deleted in the calendar', at: '2026-03-12T16:20:00.000Z' } },
  ]
  await store.appendToStream(`lead-${OTHER_ACCOUNT}-${PHONE}`, otherLead.map((event) => newEvent(event, webhook)), 'no_stream')
  await store.appendToStream(USER_STREAM, USER_STORY.map(([event, actor]) => newEvent(event, actor)), 'no_stream')
  await store.appendToStream('fbpage-104000000000001', FACEBOOK_PAGE_STORY.map(([event, actor]) => newEvent(event, actor)), 'no_stream')
  await store.appendToStream('number-+13125550100', NUMBER_CLAIM_STORY.map(([event, actor]) => newEvent(event, actor)), 'no_stream')
  for (const [stream, events] of NUMBER_PURCHASE_STORIES) await store.appendToStream(stream, events.map((event) => newEvent(event, operator)), 'no_stream')
  await store.appendToStream(`fblead-${FACEBOOK_ACCOUNT}-900000000000001`, FACEBOOK_LEAD_STORY.map(([event, actor]) => newEvent(event, actor)), 'no_stream')
  await store.appendToStream(`account-${OTHER_ACCOUNT}`, OTHER_ACCOUNT_STORY.map(([event, actor]) => newEvent(event, actor)), 0)
  const ownerAlerts: Actor = { kind: 'process', id: 'owner-alerts' }
  for (const [stream, events] of ALERT_STORIES) await store.appendToStream(stream, events.map((event) => newEvent(event, ownerAlerts)), 'no_stream')
  const oauth: Actor = { kind: 'process', id: 'oauth' }
  for (const [stream, events] of OAUTH_RECORD_STORIES) await store.appendToStream(stream, events.map((event) => newEvent(event, oauth)), 'no_stream')
  await store.appendToStream(LOG_RESTORES_STREAM, RESTORE_STORY.map((event) => newEvent(event, operator)), 'no_stream')
  await store.appendToStream(slotClaimStream(ACCOUNT, SLOT_START), SLOT_STORY.map((event) => newEvent(event, operator)), 'no_stream')
  await store.appendToStream(dayClaimStream(ACCOUNT, DAY.appointmentTypeId, DAY.day), DAY_STORY.map((event) => newEvent(event, operator)), 'no_stream')
  await store.appendToStream(calendarSyncStream(ACCOUNT), CALENDAR_SYNC_STORY.map((event) => newEvent(event, { kind: 'process', id: 'calendar-sync' })), 'no_stream')
  return { file, url: `sqlite:${file}`, store, recordedAt: (revision) => times[revision] as string }
}

export function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex')
}
