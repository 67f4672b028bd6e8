/**
 * A decider is three plain things (after Emmett): the state before anything happened, how an event
 * changes the state, and which events a command produces in a state. All pure; time comes in as `now`.
 */
export interface DomainEvent<T extends string = string, D = unknown> {
  readonly type: T
  readonly data: D
}

export interface Decider<Command, Event extends DomainEvent, State> {
  initialState(): State
  evolve(state: State, event: Event): State
  /** Returns the events to append, or throws a DomainError when the command is refused. */
  decide(command: Command, state: State, now: Date): Event[]
}

/** A command refused by the domain. `code` is stable and shared by HTTP bodies, JSON-RPC errors, logs and docs. */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'DomainError'
  }
}
