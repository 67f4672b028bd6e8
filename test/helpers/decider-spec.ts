/**
 * Decider tests that read like the domain: given(events).when(command).then(events) or
 * .thenThrows(code). Pure: no store, no clock but the one passed in.
 */
import type { Test } from 'tap'
import type { Decider, DomainEvent } from '../../src/domain/shared/decider.ts'
import { DomainError } from '../../src/domain/shared/decider.ts'

type Assert = Pick<Test, 'same' | 'fail' | 'equal'>

export function deciderSpec<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, now = new Date('2026-03-10T15:00:00Z')) {
  return (given: readonly E[] = []) => ({
    when: (command: C) => {
      const state = given.reduce((s, e) => decider.evolve(s, e), decider.initialState())
      const run = () => decider.decide(command, state, now)
      return {
        then(t: Assert, expected: readonly E[] | ((events: E[], after: S) => void)) {
          const events = run()
          if (typeof expected === 'function') {
            expected(events, events.reduce((s, e) => decider.evolve(s, e), state))
          } else {
            t.same(events, expected)
          }
        },
        thenThrows(t: Assert, code: string) {
          try {
            run()
          } catch (error) {
            if (!(error instanceof DomainError)) return t.fail(`expected DomainError ${code}, got ${String(error)}`)
            return t.equal(error.code, code)
          }
          t.fail(`expected ${code} to be thrown`)
        },
        state,
      }
    },
  })
}
