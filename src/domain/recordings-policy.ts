/**
 * The recordings policy (spec §1.7, architecture principle 6): what is a call recording or a
 * transcript, and the one filter that removes them. Call recordings and transcripts never leave the
 * tool endpoint, at any scope: every tool result and every error passes `withoutRecordings` on the
 * way out, whatever the tool meant to return; the console, `leadline history` and the audit export
 * (unless asked to keep them) apply the same filter. What the filter removes:
 *
 * - a member whose name mentions a recording or a transcript (any case, any depth) is dropped;
 * - a string holding a carrier recording or transcription URL (a URL with a `Recordings`,
 *   `Transcriptions` or `Transcripts` path segment, as Twilio's are) is dropped: from an object with
 *   its member, from an array as an element;
 * - a `{name, value}` pair (the shape in which a lead's preserved webhook fields travel) whose name
 *   mentions a recording or a transcript is dropped, as its member would be.
 *
 * A caller's voicemail (issue #43) is stricter still: it never reaches the log at all. The carrier
 * keeps it; InboundVoicemailLeft records its length only (MEDIA_FREE_EVENTS), and a signed-in owner's
 * console fetches it from the carrier by call id. Were a URL to slip in, the filter above removes it.
 */
import type { CallRecordingAvailable, CallTranscriptAvailable } from './lead/calls/calls.events.ts'
import type { TextReceived } from './lead/intake/intake.events.ts'
import type { AssistantTranscriptRecorded } from './lead/assistant/assistant.events.ts'
import { DROP, filterArray } from './shared/copy-on-write.ts'

/**
 * The events that hold a recording or a transcript, and the member that holds it: each is named so
 * the rule below removes it wherever the event's data goes. The compiler holds these names to the events.
 */
export const MEDIA_MEMBERS = {
  CallRecordingAvailable: 'recordingUrl',
  CallTranscriptAvailable: 'transcript',
  // What a person texted is kept like a transcript (issue #27): in the log, never in a tool's answer.
  TextReceived: 'transcript',
  // Every prompt and reply of a voice assistant call (issue #29): in the log, never in an answer.
  AssistantTranscriptRecorded: 'transcript',
} as const satisfies { readonly [E in CallRecordingAvailable | CallTranscriptAvailable | TextReceived | AssistantTranscriptRecorded as E['type']]: keyof E['data'] }

/** Events about a caller's voicemail or call that carry no recording, transcript or URL, ever: only ids, times, lengths, outcomes. */
export const MEDIA_FREE_EVENTS = ['InboundCallReceived', 'InboundCallConnected', 'InboundCallMissed', 'InboundVoicemailLeft', 'InboundCallbackRequested', 'InboundCallEnded'] as const

const SENSITIVE_NAME = /recording|transcript/i
const MEDIA_URL = /https?:\/\/[^\s"'<>]*?\/(?:recordings?|transcriptions?|transcripts?)(?=[/.?#\s"'<>]|$)/i

const nameCache = new Map<string, boolean>()

/** True for a member name that names a recording or transcript (`recordingUrl`, `TranscriptionText`, …). */
export function isSensitiveName(name: string): boolean {
  let sensitive = nameCache.get(name)
  if (sensitive === undefined) {
    sensitive = SENSITIVE_NAME.test(name)
    if (nameCache.size < 10_000) nameCache.set(name, sensitive)
  }
  return sensitive
}

/** True for a string that holds a carrier recording or transcription URL anywhere in it. */
export function holdsRecordingUrl(text: string): boolean {
  return text.includes('://') && MEDIA_URL.test(text)
}

function assign(target: Record<string, unknown>, name: string, value: unknown): void {
  // A member named __proto__ stays a member (plain assignment would set the prototype instead).
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true })
  else target[name] = value
}

// Copy on write: a value with nothing to remove is returned as it is, without a single allocation
// (the filter runs on every answer, most of which hold nothing to remove).
function filter(value: unknown): unknown {
  if (typeof value === 'string') return holdsRecordingUrl(value) ? DROP : value
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return filterArray(value, filter)
  const toJSON = (value as { toJSON?: unknown }).toJSON
  if (typeof toJSON === 'function') return filter((toJSON as () => unknown).call(value))
  const object = value as Record<string, unknown>
  const names = Object.keys(object)
  let kept: Record<string, unknown> | null = null
  let others = false
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    const member = object[name]
    const filtered = isSensitiveName(name) ? DROP : filter(member)
    const stays = filtered !== DROP && filtered !== undefined
    if (stays && name !== 'name' && name !== 'value') others = true
    if (kept === null) {
      if (filtered === member) continue
      kept = {}
      for (let j = 0; j < i; j++) assign(kept, names[j] as string, object[names[j] as string])
    }
    if (stays) assign(kept, name, filtered)
  }
  // A pair is judged by the name it arrived with, and is a pair once the filter has removed what it removes.
  const arrivedAs = object.name
  if (!others && 'value' in object && typeof arrivedAs === 'string' && isSensitiveName(arrivedAs)) return DROP
  return kept ?? object
}

/** The value with every recording and transcript removed (see above); a value that is one becomes undefined. */
export function withoutRecordings(value: unknown): unknown {
  const filtered = filter(value)
  return filtered === DROP ? undefined : filtered
}
