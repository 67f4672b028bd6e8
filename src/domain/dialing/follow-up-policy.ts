/**
 * Follow-up policy: when to try again after a call that was not answered. Written as comma-separated
 * steps, then optional limits: `10m, 1h, next-day 10:00; max 3 per 24h` (the default), `off` for none.
 * A step is a delay after the previous attempt (`90s`, `10m`, `2h`, `1d`) or `next-day HH:MM`
 * (the next calendar day at that wall-clock time in the account's zone).
 */
import { DateTime } from 'luxon'
import { DomainError } from '../shared/decider.ts'

export type FollowUpStep = { readonly kind: 'delay'; readonly seconds: number } | { readonly kind: 'next-day'; readonly minutes: number }

export interface FollowUpPolicy {
  readonly steps: readonly FollowUpStep[]
  /** At most this many call attempts in any rolling 24 hours (speed to lead included). */
  readonly maxPer24h: number
}

export const DEFAULT_FOLLOW_UP = '10m, 1h, next-day 10:00; max 3 per 24h'
const DAY = 24 * 3600

function invalid(spec: string, why: string): DomainError {
  return new DomainError('invalid_follow_up', `invalid follow-up policy "${spec}": ${why}`)
}

function parseStep(text: string, spec: string): FollowUpStep {
  const delay = /^(\d{1,4})\s*(s|m|h|d)$/.exec(text)
  if (delay) {
    const seconds = Number(delay[1]) * { s: 1, m: 60, h: 3600, d: DAY }[delay[2] as 's' | 'm' | 'h' | 'd']
    if (seconds < 30 || seconds > 30 * DAY) throw invalid(spec, `step "${text}" must be between 30s and 30d`)
    return { kind: 'delay', seconds }
  }
  const nextDay = /^next-day\s+(\d{1,2}):(\d{2})$/.exec(text)
  if (nextDay) {
    const hours = Number(nextDay[1])
    const minutes = Number(nextDay[2])
    if (hours > 23 || minutes > 59) throw invalid(spec, `bad time in "${text}"`)
    return { kind: 'next-day', minutes: hours * 60 + minutes }
  }
  throw invalid(spec, `unknown step "${text}" (use 10m, 2h, 1d or next-day HH:MM)`)
}

export function parseFollowUpPolicy(spec: string): FollowUpPolicy {
  const text = spec.trim().toLowerCase()
  if (text === 'off' || text === 'none') return { steps: [], maxPer24h: 3 }
  const [stepsText = '', limitsText, extra] = text.split(';')
  if (extra !== undefined) throw invalid(spec, 'only one ";" (steps; limits)')
  const steps = stepsText.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => parseStep(s, spec))
  if (steps.length === 0) throw invalid(spec, 'no steps (use "off" for no follow-up)')
  if (steps.length > 10) throw invalid(spec, 'at most 10 steps')
  let maxPer24h = 3
  if (limitsText !== undefined && limitsText.trim() !== '') {
    const max = /^\s*max\s+(\d{1,2})\s+per\s+24h\s*$/.exec(limitsText)
    if (!max) throw invalid(spec, `unknown limit "${limitsText.trim()}" (use "max N per 24h")`)
    maxPer24h = Number(max[1])
    if (maxPer24h < 1) throw invalid(spec, 'max per 24h must be at least 1')
  }
  return { steps, maxPer24h }
}

function formatStep(step: FollowUpStep): string {
  if (step.kind === 'next-day') {
    return `next-day ${String(Math.floor(step.minutes / 60)).padStart(2, '0')}:${String(step.minutes % 60).padStart(2, '0')}`
  }
  const s = step.seconds
  if (s % DAY === 0) return `${s / DAY}d`
  if (s % 3600 === 0) return `${s / 3600}h`
  if (s % 60 === 0) return `${s / 60}m`
  return `${s}s`
}

export function formatFollowUpPolicy(policy: FollowUpPolicy): string {
  if (policy.steps.length === 0) return 'off'
  return `${policy.steps.map(formatStep).join(', ')}; max ${policy.maxPer24h} per 24h`
}

export function normaliseFollowUpPolicy(spec: string): string {
  return formatFollowUpPolicy(parseFollowUpPolicy(spec))
}

/** When follow-up number `step` (0-based) is due after an attempt at `after`, in the account's zone. */
export function followUpDueAt(step: FollowUpStep, after: Date, timeZone: string): Date {
  if (step.kind === 'delay') return new Date(after.getTime() + step.seconds * 1000)
  const local = DateTime.fromJSDate(after, { zone: timeZone }).plus({ days: 1 }).startOf('day')
  return local.set({ hour: Math.floor(step.minutes / 60), minute: step.minutes % 60 }).toJSDate()
}

/**
 * The earliest time at or after `from` when one more attempt keeps within `maxPer24h` attempts in
 * any rolling 24 hours, given the times of earlier attempts. An attempt stamped later than the
 * candidate counts too: it can only be there because the clock was moved back since, and it did
 * happen, so a clock set back never frees a slot early.
 */
export function withinDailyLimit(from: Date, attemptTimes: readonly string[], maxPer24h: number): Date {
  const times = attemptTimes.map((t) => new Date(t).getTime()).sort((a, b) => a - b)
  let candidate = from.getTime()
  for (;;) {
    const window = times.filter((t) => t > candidate - DAY * 1000)
    if (window.length < maxPer24h) return new Date(candidate)
    // The oldest attempt in the window must fall out of it first.
    candidate = (window[window.length - maxPer24h] as number) + DAY * 1000 + 1000
  }
}
