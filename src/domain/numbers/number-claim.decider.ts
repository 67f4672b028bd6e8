/**
 * One sender (a phone number or a Messaging Service SID), one account: a claim by another account is
 * refused with `number_in_use` and changes nothing; the holder's own claim again is no change, except
 * that a number put in use (`inbound`) is claimed again for that use.
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import type { NumberClaimEvent, ReleaseReason, SenderKind, SenderUse } from './number-claim.events.ts'

export type NumberClaimCommand =
  | { type: 'ClaimNumber'; sender: string; kind: SenderKind; accountId: string; use: SenderUse; carrierHolds: string | null }
  | { type: 'ReleaseNumber'; sender: string; accountId: string; reason: ReleaseReason }

export interface NumberClaimState {
  /** The account that holds the sender; null when nobody does. */
  readonly accountId: string | null
  readonly use: SenderUse | null
  readonly claimedAt: string | null
}

const E164 = /^\+[1-9]\d{6,14}$/
const MESSAGING_SERVICE = /^MG[0-9a-f]{32}$/

/** Whether `value` can be a sender at all (and so name a claim stream). */
export function isSender(value: string): boolean {
  return E164.test(value) || MESSAGING_SERVICE.test(value)
}

/** The sender's kind, or a refusal: only an E.164 number or an `MG…` SID names a stream. */
export function senderKind(sender: string): SenderKind {
  if (E164.test(sender)) return 'phone_number'
  if (MESSAGING_SERVICE.test(sender)) return 'messaging_service'
  throw new DomainError('invalid_setting', `invalid sender ${JSON.stringify(sender.slice(0, 40))}: an E.164 number or a Messaging Service SID`)
}

/** The refusal of a sender another account holds; its id stays out of it: the refused owner learns only that it is taken. */
export function numberInUse(sender: string, kind: SenderKind): DomainError {
  const what = kind === 'phone_number' ? `the number ${sender}` : `the Messaging Service ${sender}`
  return new DomainError('number_in_use', `${what} is in use by another account: a number or Messaging Service belongs to one account (its texts and calls are routed there)`, { field: kind === 'phone_number' ? 'callerId' : 'messagingService' })
}

export const numberClaimDecider: Decider<NumberClaimCommand, NumberClaimEvent, NumberClaimState> = {
  initialState: () => ({ accountId: null, use: null, claimedAt: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'NumberClaimed':
        return { accountId: event.data.accountId, use: event.data.use, claimedAt: event.data.claimedAt }
      case 'NumberReleased':
        return event.data.accountId === state.accountId ? { accountId: null, use: null, claimedAt: null } : state
    }
  },

  decide(command, state, now) {
    switch (command.type) {
      case 'ClaimNumber': {
        if (senderKind(command.sender) !== command.kind) throw new DomainError('invalid_setting', `${command.sender} is not a ${command.kind}`)
        // Put in use, a number the account held for a setting is held for good: no change of the setting releases it.
        if (state.accountId === command.accountId && (state.use === command.use || command.use !== 'inbound')) return []
        if (state.accountId !== null && state.accountId !== command.accountId) throw numberInUse(command.sender, command.kind)
        const { sender, kind, accountId, use, carrierHolds } = command
        return [{ type: 'NumberClaimed', data: { sender, kind, accountId, use, carrierHolds, claimedAt: now.toISOString() } }]
      }
      case 'ReleaseNumber':
        if (state.accountId !== command.accountId) return []
        return [{ type: 'NumberReleased', data: { sender: command.sender, accountId: command.accountId, reason: command.reason, releasedAt: now.toISOString() } }]
    }
  },
}
