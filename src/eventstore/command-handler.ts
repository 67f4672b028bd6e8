/**
 * Runs a command against one stream: load → decide → append with the expected revision → on a
 * conflict, reload and decide again. Commands on the same stream within this process are queued so
 * they do not race each other; the expected revision still guards against other processes and nodes.
 *
 * The state a command leaves behind is kept (for the most recently used streams), so the next
 * command on that stream decides without reading it again; a stream not kept is first taken to be
 * new (most are: a new lead). Both are safe because every append names the revision the state was
 * built from: if the stream had moved (or existed), the append fails and the command reloads, as it
 * does when it loses a race. A decision that
 * appends nothing, or refuses, is checked against the stream's head before it is believed.
 */
import { randomUUID } from 'node:crypto'
import type { Decider, DomainEvent } from '../domain/shared/decider.ts'
import { newEventId } from '../domain/shared/ids.ts'
import { schemaVersionOf, upcast } from '../domain/upcasters.ts'
import type { Actor, NewEvent, RecordedEvent } from '../domain/event.ts'
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

/** 2,000 lead states: a few MB of heap, and 20 s of leads at 100 a second. */
const CACHED_STREAMS = 2_000

export interface CommandHandlerOptions {
  readonly clock?: () => Date
  readonly maxAttempts?: number
  /**
   * How many streams' states are kept between commands (default 2,000; 0 keeps none). The ones worth keeping are those a call or a repeat submission
   * follows within seconds, and a miss costs one read of the stream.
   */
  readonly cachedStreams?: number
}

interface Known<S> {
  readonly decider: unknown
  readonly state: S
  readonly revision: number
}

/** A command's new events, once they are on the log, with the state they left (see CommandHandler.observe). */
export interface Appended {
  readonly stream: string
  readonly events: readonly DomainEvent[]
  readonly state: unknown
}

export class CommandHandler {
  private readonly queue = new KeyedQueue()
  private readonly observers = new Set<(appended: Appended) => void>()
  private readonly clock: () => Date
  private readonly maxAttempts: number
  /** stream → the state its last command here left, least recently used first. */
  private readonly known = new Map<string, Known<unknown>>()
  private readonly cachedStreams: number

  constructor(
    private readonly store: EventStore,
    options: CommandHandlerOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date())
    this.maxAttempts = options.maxAttempts ?? 10
    this.cachedStreams = options.cachedStreams ?? CACHED_STREAMS
  }

  /** Calls `observer` with what each command of this process appends, once it is on the log (metrics); returns the way to stop. */
  observe(observer: (appended: Appended) => void): () => void {
    this.observers.add(observer)
    return () => this.observers.delete(observer)
  }

  /** Folds a stream into state (through the upcasters), as the decider sees it. */
  async load<E extends DomainEvent, S>(stream: string, decider: Decider<unknown, E, S>): Promise<{ state: S; revision: number; events: RecordedEvent[] }> {
    const events = (await this.store.readStream(stream)).map(upcast)
    return { ...fold(events, decider), events }
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
      // What this handler knows, else at first "a new stream", and after a conflict the stream as stored.
      const kept = this.recall<S>(stream, decider)
      const assumedNew = attempt === 1 && kept === undefined
      let { state, revision } = kept ?? (assumedNew ? { state: decider.initialState(), revision: -1 } : await this.loadAndRemember(stream, decider))
      const unverified = attempt === 1
      let decided: E[]
      try {
        decided = decider.decide(command, state, this.clock())
      } catch (error) {
        // Refused on a state not read just now: believe it only if the stream has not moved since.
        const fresh = unverified && (await this.refresh(stream, decider, revision))
        if (!fresh) throw error
        ;({ state, revision } = fresh)
        decided = decider.decide(command, state, this.clock())
      }
      if (decided.length === 0) {
        const fresh = unverified && (await this.refresh(stream, decider, revision))
        if (!fresh) return { state, newEvents: [], revision, position: null }
        ;({ state, revision } = fresh)
        decided = decider.decide(command, state, this.clock())
        if (decided.length === 0) return { state, newEvents: [], revision, position: null }
      }
      const toAppend: NewEvent[] = decided.map((event) => ({
        id: newEventId(),
        type: event.type,
        data: event.data,
        metadata: { correlationId, causationId: context.causationId ?? null, actor: context.actor, schemaVersion: schemaVersionOf(event.type) },
      }))
      try {
        const result = await this.store.appendToStream(stream, toAppend, revision === -1 ? 'no_stream' : revision)
        const next = decided.reduce((s, e) => decider.evolve(s, e), state)
        this.remember(stream, decider, next, result.nextExpectedRevision)
        for (const observer of this.observers) observer({ stream, events: decided, state: next })
        return { state: next, newEvents: decided, revision: result.nextExpectedRevision, position: result.position }
      } catch (error) {
        // Whatever happened, the kept state may be behind the stream now.
        this.known.delete(stream)
        // Another process or node wrote first: decide again on what it wrote (dedup by phone ends here as an update).
        if (!isWrongExpectedRevision(error) || attempt >= this.maxAttempts) throw error
        // A stream only assumed new (or a kept state gone stale) is no race: reload and decide again at
        // once. After a real race, wait a moment first.
        if (!unverified) await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt))
      }
    }
  }

  /** The state the last command on this stream left here, if it was made with the same decider. */
  private recall<S>(stream: string, decider: unknown): { state: S; revision: number } | undefined {
    const known = this.known.get(stream)
    if (known === undefined || known.decider !== decider) return undefined
    return known as Known<S>
  }

  private remember(stream: string, decider: unknown, state: unknown, revision: number): void {
    if (this.cachedStreams === 0) return
    this.known.delete(stream)
    this.known.set(stream, { decider, state, revision })
    if (this.known.size > this.cachedStreams) this.known.delete(this.known.keys().next().value as string)
  }

  /** The stream loaded afresh when it has moved past `revision`; undefined when `revision` is still its head. */
  private async refresh<E extends DomainEvent, S>(
    stream: string,
    decider: Decider<never, E, S>,
    revision: number,
  ): Promise<{ state: S; revision: number } | undefined> {
    if ((await this.store.streamRevision(stream)) === revision) return undefined
    return this.loadAndRemember(stream, decider)
  }

  private async loadAndRemember<E extends DomainEvent, S>(stream: string, decider: Decider<never, E, S>): Promise<{ state: S; revision: number }> {
    const { state, revision } = await this.load(stream, decider as Decider<unknown, E, S>)
    this.remember(stream, decider, state, revision)
    return { state, revision }
  }
}

/** A stream's events folded into the decider's state, and the stream's last revision (-1: none). */
function fold<E extends DomainEvent, S>(events: readonly RecordedEvent[], decider: Decider<never, E, S>): { state: S; revision: number } {
  let state = decider.initialState()
  for (const event of events) state = decider.evolve(state, event as unknown as E)
  return { state, revision: events.length === 0 ? -1 : (events[events.length - 1] as RecordedEvent).revision }
}
