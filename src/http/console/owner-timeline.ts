/**
 * The lead's timeline as its owner reads it (issue #44): times in the account's zone with the zone
 * named, who did it in plain words, and none of the log's internal labels: process names, node ids,
 * carrier message and call ids, decision, token and key ids stay in the audit view (`leadline
 * history`, the export), which keeps every one of them.
 */
import type { HistoryEntry } from '../../audit/lead-history.ts'
import { localTimes } from './layout.ts'

/** Bookkeeping of the log (a claim before the carrier is asked, a conversation read): the audit view has them. */
const HIDDEN: ReadonlySet<string> = new Set([
  'CallAttemptStarted', 'TextAttemptStarted', 'OwnerLegStarted', 'VoicemailStarted', 'AssistantFallbackStarted', 'TextReplyClaimed', 'ConversationRead',
  'PayLinkTextStarted', 'FollowUpClaimed',
])

const INTERNAL: ReadonlyArray<readonly [RegExp, string]> = [
  // "appointment bk_… booked": an appointment's summary starts with its id
  [/^appointment [^\s:]+/, 'appointment'],
  // "on node host:1234", "by process dialer"
  [/ (?:on|by) (?:node|process) [^\s,;:)]+/g, ''],
  // "(message SM…)", "(call CA…)", "(decision dec_…)", "(idempotency key given)"
  [/ \((?:message|call|decision|request|session|text|key|token|idempotency key)\b[^)]*\)/g, ''],
  // Prefixed ids (wht_…, dec_…, txt_…, key_…: random, with a digit; never a code such as dnc_unrecognized), and Twilio's sids
  [/\b[a-z]{2,5}_(?=[A-Za-z]*\d)[0-9A-Za-z]{10,}\b/g, ''],
  [/\b(?:CA|SM|MM|MG|RE|PN)[0-9a-f]{32}\b/g, ''],
  [/ {2,}/g, ' '],
  [/ ([,;:.)])/g, '$1'],
  [/\( ?\)/g, ''],
]

/** An event's summary in the owner's words: its times in `zone`, no internal ids. */
export function ownerSummary(summary: string, zone: string): string {
  let text = localTimes(summary, zone)
  for (const [pattern, replacement] of INTERNAL) text = text.replace(pattern, replacement)
  return text.trim()
}

/** Who did it, for the owner: "you" for the signed-in owner; never a key id, a token id or a node. */
export function ownerActor(actor: HistoryEntry['actor'], userId: string): string {
  switch (actor.kind) {
    case 'user':
      return actor.id === userId ? 'You' : 'A team member'
    case 'api_key':
    case 'oauth_grant':
      return 'An AI agent'
    case 'webhook_token':
    case 'lead_source':
      return 'Your lead source'
    case 'carrier':
      return 'The phone company'
    case 'payments':
      return 'The payment provider'
    case 'operator':
      return 'The operator'
    default:
      return 'Leadline'
  }
}

/** The entries an owner's timeline shows: the log's bookkeeping left to the audit view. */
export function ownerEntries(entries: readonly HistoryEntry[]): HistoryEntry[] {
  return entries.filter((entry) => !HIDDEN.has(entry.type))
}
