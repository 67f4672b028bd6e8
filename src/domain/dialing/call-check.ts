/**
 * May this account call this lead now? The one answer used by speed to lead, follow-up, place_call
 * and every dry run: do-not-call first, then the account's caller id, then calling hours and the
 * lead-time guard (calling-window.ts).
 */
import type { AccountSettings } from '../account/account-settings.ts'
import { callPermission } from './calling-window.ts'

export interface CallCheck {
  readonly allowed: boolean
  /** Stable code when not allowed: do_not_call, no_caller_id, outside_calling_hours, outside_lead_hours, no_calling_hours. */
  readonly reason: string | null
  readonly message: string
  /** ISO UTC; null when allowed now, or when never. */
  readonly nextAllowedAt: string | null
  readonly accountZone: string
  readonly leadZone: string | null
}

export interface CallTargetFacts {
  readonly phone: string
  readonly state?: string | undefined
  readonly doNotCall: boolean
}

export function checkCall(settings: AccountSettings, target: CallTargetFacts, now: Date): CallCheck {
  const zones = { accountZone: settings.timeZone, leadZone: null }
  if (target.doNotCall) {
    return { allowed: false, reason: 'do_not_call', message: 'the lead is do-not-call: it is never dialed', nextAllowedAt: null, ...zones }
  }
  if (!settings.callerId) {
    return {
      allowed: false,
      reason: 'no_caller_id',
      message: "the account has no caller id to call from (leadline account set ID --caller-id +1…)",
      nextAllowedAt: null,
      ...zones,
    }
  }
  const permission = callPermission(
    { timeZone: settings.timeZone, callingHours: settings.callingHours, leadTimeGuard: settings.leadTimeGuard },
    { phone: target.phone, ...(target.state ? { state: target.state } : {}) },
    now,
  )
  if (permission.allowed) {
    return { allowed: true, reason: null, message: 'allowed now', nextAllowedAt: null, accountZone: permission.accountZone, leadZone: permission.leadZone }
  }
  return {
    allowed: false,
    reason: permission.reason,
    message: permission.message,
    nextAllowedAt: permission.nextAllowedAt,
    accountZone: permission.accountZone,
    leadZone: permission.leadZone,
  }
}
