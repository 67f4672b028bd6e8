/**
 * Follow-up policy: what to do after a call that was not answered, step by step, then optional
 * limits: `10m, 1h, next-day 10:00; max 3 per 24h` (the default), `off` for none. A step is a time
 * and what to do then: a delay after the previous attempt (`90s`, `10m`, `2h`, `1d`) or `next-day
 * HH:MM` (the next calendar day at that wall-clock time in the account's zone), then `call` (the
 * default, so every policy written before text steps reads as it did) or `text "…"`, a text whose
 * `{first_name}`, `{business}` and `{callback_number}` are filled in. Steps and the limit are
 * separated by `,` or `;` (outside the quotes), so `10m call; 25m text "…"; max 3 calls per 24h`
 * reads too. The canonical form keeps the older spelling: steps joined by `, `, calls without a
 * kind, then `; max N per 24h`.
 */
import { DateTime } from 'luxon'
import { DomainError } from '../shared/decider.ts'
import { templateProblem } from '../shared/template.ts'

export type FollowUpTiming = { readonly kind: 'delay'; readonly seconds: number } | { readonly kind: 'next-day'; readonly minutes: number }
/** A step with `text` sends that text (a template); one without calls. */
export type FollowUpStep = FollowUpTiming & { readonly text?: string }

export interface FollowUpPolicy {
  readonly steps: readonly FollowUpStep[]
  /** At most this many call attempts in any rolling 24 hours (speed to lead included); texts do not count. */
  readonly maxPer24h: number
}

export const DEFAULT_FOLLOW_UP = '10m, 1h, next-day 10:00; max 3 per 24h'
/** What a text step may name: the lead's first name (or "there"), the account's name and its caller id. */
export const FOLLOW_UP_TEXT_PLACEHOLDERS = ['first_name', 'business', 'callback_number'] as const
/** A text step's template, before the opt-out line is added: two segments of plain text. */
export const MAX_FOLLOW_UP_TEXT = 320
export const MAX_FOLLOW_UP_STEPS = 10
const DAY = 24 * 3600

function invalid(spec: string, why: string): DomainError {
  return new DomainError('invalid_follow_up', `invalid follow-up policy "${spec}": ${why}`)
}

/** One item between separators: the words outside the quotes and, for a text step, what the quotes held. */
interface Item {
  readonly words: string
  readonly text: string | null
  /** Words after the closing quote (there must be none). */
  readonly after: string
}

/**
 * Splits the spec at `,` and `;` outside double quotes. Inside quotes `\"` is a quote and `\\` a
 * backslash; a text holds one line, so a control character is refused.
 */
function splitItems(spec: string): Item[] {
  const items: Item[] = []
  let words = ''
  let text: string | null = null
  let after = ''
  const push = () => {
    if (words.trim() !== '' || text !== null || after.trim() !== '') items.push({ words: words.trim(), text, after: after.trim() })
    words = ''
    text = null
    after = ''
  }
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i] as string
    if (c === ',' || c === ';') {
      push()
      continue
    }
    if (c !== '"') {
      if (text === null) words += c
      else after += c
      continue
    }
    if (text !== null) throw invalid(spec, `a step holds one quoted text: "${words.trim()} …" has a second`)
    let quoted = ''
    let closed = false
    for (i++; i < spec.length; i++) {
      const q = spec[i] as string
      if (q === '"') {
        closed = true
        break
      }
      if (q === '\\' && (spec[i + 1] === '"' || spec[i + 1] === '\\')) quoted += spec[++i] as string
      else if (q < ' ' || q === '\x7f') throw invalid(spec, 'a text step\'s text must be one line (no line breaks or other control characters)')
      else quoted += q
    }
    if (!closed) throw invalid(spec, `unterminated quote: the text after "${words.trim()}" has no closing " (write \\" for a quote inside the text)`)
    text = quoted
  }
  push()
  return items
}

function parseTiming(text: string, spec: string): FollowUpTiming {
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
  throw invalid(spec, `unknown step "${text}" (use 10m, 2h, 1d or next-day HH:MM, then call or text "…")`)
}

/** Why a text step's template cannot be sent, or null when it can. */
export function followUpTextProblem(template: string): string | null {
  return templateProblem(template, FOLLOW_UP_TEXT_PLACEHOLDERS, MAX_FOLLOW_UP_TEXT)
}

function parseStep(item: Item, number: number, spec: string): FollowUpStep {
  const words = item.words.toLowerCase().replace(/\s+/g, ' ')
  if (item.text === null) {
    if (/(^| )text$/.test(words)) throw invalid(spec, `step ${number} "${item.words}": a text step needs its message in double quotes: text "…"`)
    return parseTiming(words.replace(/ call$/, ''), spec)
  }
  if (item.after !== '') throw invalid(spec, `step ${number}: unexpected "${item.after}" after the text's closing quote`)
  if (!/(^| )text$/.test(words)) throw invalid(spec, `step ${number} "${item.words} "…"": a quoted text must follow "text" (10m text "…")`)
  const timing = words.slice(0, -'text'.length).trim()
  if (timing === '') throw invalid(spec, `step ${number}: a text step starts with its time (25m text "…")`)
  const problem = followUpTextProblem(item.text)
  if (problem !== null) throw invalid(spec, `text step ${number}: ${problem}`)
  return { ...parseTiming(timing, spec), text: item.text }
}

const LIMIT = /^max\s+(\d{1,2})\s+(?:calls\s+)?per\s+24h$/

export function parseFollowUpPolicy(spec: string): FollowUpPolicy {
  const trimmed = spec.trim().toLowerCase()
  if (trimmed === 'off' || trimmed === 'none') return { steps: [], maxPer24h: 3 }
  const items = splitItems(spec)
  const steps: FollowUpStep[] = []
  let maxPer24h: number | null = null
  for (const item of items) {
    const words = item.words.toLowerCase()
    if (item.text === null && /^max\b/.test(words)) {
      const max = LIMIT.exec(words.replace(/\s+/g, ' '))
      if (!max) throw invalid(spec, `unknown limit "${item.words}" (use "max N per 24h")`)
      if (maxPer24h !== null) throw invalid(spec, 'only one limit ("max N per 24h")')
      maxPer24h = Number(max[1])
      if (maxPer24h < 1) throw invalid(spec, 'max per 24h must be at least 1')
      continue
    }
    if (maxPer24h !== null) throw invalid(spec, `the limit comes last: "${item.words}" follows it`)
    steps.push(parseStep(item, steps.length + 1, spec))
  }
  if (steps.length === 0) throw invalid(spec, 'no steps (use "off" for no follow-up)')
  if (steps.length > MAX_FOLLOW_UP_STEPS) throw invalid(spec, `at most ${MAX_FOLLOW_UP_STEPS} steps`)
  return { steps, maxPer24h: maxPer24h ?? 3 }
}

function formatTiming(step: FollowUpTiming): string {
  if (step.kind === 'next-day') {
    return `next-day ${String(Math.floor(step.minutes / 60)).padStart(2, '0')}:${String(step.minutes % 60).padStart(2, '0')}`
  }
  const s = step.seconds
  if (s % DAY === 0) return `${s / DAY}d`
  if (s % 3600 === 0) return `${s / 3600}h`
  if (s % 60 === 0) return `${s / 60}m`
  return `${s}s`
}

function formatStep(step: FollowUpStep): string {
  if (step.text === undefined) return formatTiming(step)
  return `${formatTiming(step)} text "${step.text.replace(/[\\"]/g, (c) => `\\${c}`)}"`
}

/** The steps alone in canonical form (`10m, 25m text "…", 1h`), as the console's steps field shows them. */
export function formatFollowUpSteps(steps: readonly FollowUpStep[]): string {
  return steps.map(formatStep).join(', ')
}

export function formatFollowUpPolicy(policy: FollowUpPolicy): string {
  if (policy.steps.length === 0) return 'off'
  return `${formatFollowUpSteps(policy.steps)}; max ${policy.maxPer24h} per 24h`
}

export function normaliseFollowUpPolicy(spec: string): string {
  return formatFollowUpPolicy(parseFollowUpPolicy(spec))
}

/** When follow-up number `step` (0-based) is due after an attempt at `after`, in the account's zone. */
export function followUpDueAt(step: FollowUpTiming, after: Date, timeZone: string): Date {
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
