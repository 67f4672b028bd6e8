/**
 * What a carrier tells us about a call it placed, in the domain's words: the lead's calls slice
 * decides on it, and the carrier port's adapters produce it (they import it from here).
 */

/** Which carrier placed a call: its adapter's name (`twilio`, `simulated`, …), recorded as given. */
export type CarrierName = string

export type CallStatus =
  | 'queued'
  | 'initiated'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'busy'
  | 'no-answer'
  | 'failed'
  | 'canceled'

export interface CallStatusUpdate {
  callId: string
  status: CallStatus
  /** `human`, `machine_start`, `fax`, `unknown`, … when answering-machine detection was asked for. */
  answeredBy?: string
  durationSeconds?: number
  recordingUrl?: string
  transcript?: string
  /** Order of updates for one call (0, 1, 2, …): callbacks can arrive out of order. */
  sequenceNumber?: number
  /** When the carrier says the change happened (ISO 8601). */
  timestamp: string
  carrier: CarrierName
}

/** Whether a `<Dial>` leg reached the person it rang (the carrier's dial status, Twilio's DialCallStatus). */
export function dialConnected(dialStatus: string): boolean {
  return dialStatus === 'completed' || dialStatus === 'answered'
}
