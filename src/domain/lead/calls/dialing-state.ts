/** What the calls slice knows of one lead's calls: each call's record, and where speed to lead and follow-up stand. */
import type { IntakeState } from '../intake/intake.decider.ts'
import type * as agentFirst from './agent-first.ts'
import type { CallPurpose, MenuChoice, SpeedToLeadSkip } from './calls.events.ts'

export type CallStage = 'decided' | 'started' | 'placed' | 'failed' | 'unknown' | 'expired'

export interface CallRecord {
  readonly decisionId: string
  readonly purpose: CallPurpose
  readonly attempt: number
  readonly from: string
  readonly to: string
  readonly decidedAt: string
  readonly idempotencyKey: string | null
  readonly stage: CallStage
  readonly startedAt: string | null
  readonly callId: string | null
  readonly carrier: string | null
  /** The furthest carrier status seen (statuses only move forward). */
  readonly status: string | null
  readonly answered: boolean
  readonly ended: boolean
  readonly failure: string | null
  /** Recording URLs and transcripts already stored, so a repeated callback does not store them twice. */
  readonly recordings: readonly string[]
  readonly transcripts: readonly string[]
  /** The carrier was asked to tell a person from a machine: only its answer (or a key) makes the call answered. */
  readonly machineDetection: boolean
  /** Who picked up, as answering-machine detection said (or `human` once a key was pressed). */
  readonly answeredBy: string | null
  /** A machine or a fax answered: not the lead. */
  readonly machine: boolean
  readonly voicemail: 'started' | 'left' | 'failed' | 'skipped' | null
  /** The lead's choice in the menu, once per call. */
  readonly menuChoice: MenuChoice | null
  /** After `connect`: whether the owner and the lead talked; null until the owner's leg ends. */
  readonly ownerConnected: boolean | null
  /** A follow-up was scheduled after this call (so its ending does not schedule another). */
  readonly followedUp: boolean
  /** When the lead asked on this call to be called back (pressed 2). */
  readonly callbackAt: string | null
  /** When the carrier or the lead last said how this call went (an answer, a machine, a key, its end); null while it is in flight. */
  readonly outcomeAt: string | null
  /** Agent-first: the owner's legs and where the call stands (agent-first.ts); null for a call that rings the lead first. */
  readonly agent: agentFirst.AgentFirstCall | null
  /** Click-to-call: the owner numbers this call rings first (CallDecided's `ownerNumbers`); null for any other call. */
  readonly ownerNumbers?: readonly string[] | null
}

export interface DialingState {
  readonly calls: Readonly<Record<string, CallRecord>>
  /** Decision ids in the order they were decided. */
  readonly order: readonly string[]
  readonly speedToLead: 'pending' | 'decided' | 'skipped'
  /** Why speed to lead did not call (its reason code), when it did not. */
  readonly speedToLeadSkip: SpeedToLeadSkip | null
  /** `textStep`: the step scheduled was a text step (its number), as FollowUpScheduled said; `connectMissed`: a call back after a connect that reached nobody. */
  readonly pendingFollowUp: { readonly attempt: number; readonly dueAt: string; readonly textStep?: number; readonly connectMissed?: true } | null
  readonly followUpStopped: string | null
  /** Last time something went out to the lead (a call placed). */
  readonly lastContactAt: string | null
  readonly answeredAt: string | null
  /** When the lead asked to be called back (pressed 2), until that call is decided. */
  readonly callbackAt: string | null
  /** When each voicemail to this lead was started: at most `voicemailPerDay` in any 24 hours. */
  readonly voicemailTimes: readonly string[]
  /** When the account paused the lead's follow-up cadence (pause_follow_up); null while it runs. */
  readonly followUpPaused: string | null
  /** Follow-up text steps decided so far (the texts slice holds the texts); with the follow-up calls, how far the policy has gone. */
  readonly followUpTexts: number
}

export const INITIAL_DIALING: DialingState = {
  calls: {},
  order: [],
  speedToLead: 'pending',
  speedToLeadSkip: null,
  pendingFollowUp: null,
  followUpStopped: null,
  lastContactAt: null,
  answeredAt: null,
  callbackAt: null,
  voicemailTimes: [],
  followUpPaused: null,
  followUpTexts: 0,
}

/** What the calls slice reads of the lead: who the person is, whether they may be called, and their calls. */
export type LeadWithCalls = IntakeState & { readonly dialing: DialingState }
