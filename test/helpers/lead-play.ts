/**
 * Lead histories made by the lead decider itself, step by step (`play`), for the calls slice's
 * given/when/then tests of what happens when the phone is answered.
 */
import { leadDecider, type LeadCommand, type LeadState } from '../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../src/domain/lead/lead.events.ts'
import type { LeadFields } from '../../src/domain/lead/intake/normalize-lead-input.ts'

export const plus = (date: Date, ms: number) => new Date(date.getTime() + ms)

/** Jane Doe at +13125550142, as intake would hold her. */
export function leadFields(): LeadFields {
  return { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '+13125550142', firstName: 'Jane', fullName: 'Jane Doe', industryFields: {}, extraFields: [] }
}

export const stateOf = (events: readonly LeadEvent[]): LeadState => events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())

/** Runs each command, at its time, on the history so far; returns the whole history. */
export function play(steps: ReadonlyArray<readonly [Date, LeadCommand]>, start: readonly LeadEvent[] = []): LeadEvent[] {
  const events = [...start]
  for (const [when, command] of steps) events.push(...leadDecider.decide(command, stateOf(events), when))
  return events
}

export const types = (events: readonly LeadEvent[]) => events.map((e) => e.type)
