/**
 * Runs a command against one stream: load → decide → append with the expected revision → on a
 * conflict, reload and decide again. Commands on the same stream within this process are queued so
 * they do not race each other; the expected revision still guards against other processes and nodes.
 */
import { randomUUID } from 'node:crypto'
import type { Decider, DomainEvent } from '../domain/shared/decider.ts'
import { upcast } from '../domain/upcasters.ts'
import type { Actor, NewEvent, RecordedEvent } from './event.ts'
import { isWrongExpectedRevision, type EventStore } from './event-store.port.ts'
import { KeyedQueue } from './keyed-queue.ts'

export interface CommandContext {
  readonly actor: Actor
  readonly correlationId?: string
  readonly causationId?: string | null
}

export interface CommandResult<E, S> {
  /** State after the new events. */
  readonly state: S
  readonly newEvents: readonly E[]
  /** The stream's last revision after the command (-1 when the stream still does not exist). */
  readonly revision: number
  /** Global position of the last new event, or null when nothing was appended. */
  readonly position: number | null
}

export interface CommandHandlerOptions {
  readonly clock?: () => Date
  readonly maxAttempts?: number
}

export class CommandHandler {
  private readonly queue = new KeyedQueue()
  private readonly clock: () => Date
  private readonly maxAttempts: number

  constructor(
    private readonly store: EventStore,
    options: CommandHandlerOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date())
    this.maxAttempts = options.maxAttempts ?? 10
  }

  /** Folds a stream into state (through the upcasters), as the decider sees it. */
  async load<E extends DomainEvent, S>(stream: string, decider: Decider<unknown, E, S>): Promise<{ state: S; revision: number; events: RecordedEvent[] }> {
    const events = (await this.store.readStream(stream)).map(upcast)
    let state = decider.initialState()
    for (const event of events) state = decider.evolve(state, event as unknown as E)
    return { state, revision: events.length === 0 ? -1 : (events[events.length - 1] as RecordedEvent).revision, events }
  }

  handle<C, E extends DomainEvent, S>(
    stream: string,
    decider: Decider<C, E, S>,
    command: C,
    context: CommandContext,
  ): Promise<CommandResult<E, S>> {
    return this.queue.run(stream, () => this.attempt(stream, decider, command, context))
  }

  private async attempt<C, E extends DomainEvent, S>(
    stream: string,
    decider: Decider<C, E, S>,
    command: C,
    context: CommandContext,
  ): Promise<CommandResult<E, S>> {
    const correlationId = context.correlationId ?? randomUUID()
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(stream, decider as Decider<unknown, E, S>)
      const decided = decider.decide(command, state, this.clock())
      if (decided.length === 0) return { state, newEvents: [], revision, position: null }
      const toAppend: NewEvent[] = decided.map((event) => ({
        id: randomUUID(),
        type: event.type,
        data: event.data,
        metadata: { correlationId, causationId: context.causationId ?? null, actor: context.actor, schemaVersion: 1 },
      }))
      try {
        const result = await this.store.appendToStream(stream, toAppend, revision === -1 ? 'no_stream' : revision)
        const next = decided.reduce((s, e) => decider.evolve(s, e), state)
        return { state: next, newEvents: decided, revision: result.nextExpectedRevision, position: result.position }
      } catch (error) {
        // Another process or node wrote first: decide again on what it wrote (dedup by phone ends here as an update).
        if (!isWrongExpectedRevision(error) || attempt >= this.maxAttempts) throw error
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt))
      }
    }
  }
}
