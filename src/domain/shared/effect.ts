/**
 * An effect: a decision on the log that a process performs on the world once (claim → perform →
 * record). Each slice declares its effects beside its events, by their event types; the claims read
 * model (projections/claims/) follows every declared effect the same way, so a new process finds its
 * unclaimed decisions and its claims without an outcome there, with no read model of its own.
 */
import type { DomainEvent } from './decider.ts'

export interface Effect {
  /** The process that performs it: its name and the actor of its claims. */
  readonly name: string
  /** The decision's event type, and the field of its data that says when it was decided. */
  readonly decision: string
  readonly decidedAt: string
  /** The field that holds the decision's id, on the decision and on each of its claims and outcomes. */
  readonly id: string
  /** Each event type that claims a decision, with the field of its data that says when. */
  readonly claims: Readonly<Record<string, string>>
  /** The event types that end a decision, claimed or not (refused before its claim, the provider's answer, outcome unknown). */
  readonly outcomes: readonly string[]
}

type DataOf<E extends DomainEvent, T extends E['type']> = Extract<E, { type: T }>['data']
/** The fields every one of `D` (a union of event data) holds as a string. */
type StringField<D> = { [K in keyof D & string]: D[K] extends string ? K : never }[keyof D & string]

/**
 * Declares an effect of the events `E` (a slice's union): the compiler checks every event type
 * named, and that the id and time fields exist, as strings, on the events that must carry them.
 */
export function effectOf<E extends DomainEvent>() {
  return <D extends E['type'], C extends E['type'], O extends E['type']>(declaration: {
    readonly name: string
    readonly decision: D
    readonly decidedAt: StringField<DataOf<E, D>>
    readonly id: StringField<DataOf<E, D | C | O>>
    readonly claims: { readonly [T in C]: StringField<DataOf<E, T>> }
    readonly outcomes: readonly O[]
  }): Effect => declaration
}
