/**
 * How batches and their outcomes cross to and from the writer thread: as flat arrays of strings and
 * numbers. Structured clone pays for every object and every property name it meets; a flat array
 * costs far less on the main thread, which is the thread we are saving.
 */
import type { ExpectedRevision } from '../event-store.port.ts'
import type { AppendFailure, EncodedEvent, WriteOutcome, WriteRequest } from './sqlite-writer.ts'

export type Wire = Array<string | number | null>

/** [stream, expected, recordedAt, eventCount, (id | null, type, data, metadata) × eventCount] per request. */
export function requestsToWire(requests: readonly WriteRequest[]): Wire {
  const wire: Wire = []
  for (const request of requests) {
    wire.push(request.stream, request.expected, request.recordedAt, request.events.length)
    for (const event of request.events) wire.push(event.id ?? null, event.type, event.data, event.metadata)
  }
  return wire
}

export function requestsFromWire(wire: Wire): WriteRequest[] {
  const requests: WriteRequest[] = []
  let i = 0
  while (i < wire.length) {
    const stream = wire[i++] as string
    const expected = wire[i++] as ExpectedRevision
    const recordedAt = wire[i++] as string
    const count = wire[i++] as number
    const events: EncodedEvent[] = []
    for (let n = 0; n < count; n++) {
      const id = wire[i++] as string | null
      events.push({ id: id ?? undefined, type: wire[i++] as string, data: wire[i++] as string, metadata: wire[i++] as string })
    }
    requests.push({ stream, expected, recordedAt, events })
  }
  return requests
}

const FAILED = 0
const WROTE_NOTHING = 1
const WROTE = 2

/**
 * Per outcome: [FAILED, failure as JSON] | [WROTE_NOTHING, nextExpectedRevision, position]
 * | [WROTE, nextExpectedRevision, position, firstPosition, firstRevision, prevHash, count, (id, hash) × count].
 */
export function outcomesToWire(outcomes: readonly WriteOutcome[]): Wire {
  const wire: Wire = []
  for (const outcome of outcomes) {
    if (!outcome.ok) {
      wire.push(FAILED, JSON.stringify(outcome.failure))
      continue
    }
    const { written } = outcome
    if (written === null) {
      wire.push(WROTE_NOTHING, outcome.nextExpectedRevision, outcome.position)
      continue
    }
    wire.push(WROTE, outcome.nextExpectedRevision, outcome.position, written.firstPosition, written.firstRevision, written.prevHash, written.ids.length)
    for (let n = 0; n < written.ids.length; n++) wire.push(written.ids[n] as string, written.hashes[n] as string)
  }
  return wire
}

export function outcomesFromWire(wire: Wire): WriteOutcome[] {
  const outcomes: WriteOutcome[] = []
  let i = 0
  while (i < wire.length) {
    const kind = wire[i++]
    if (kind === FAILED) {
      outcomes.push({ ok: false, failure: JSON.parse(wire[i++] as string) as AppendFailure })
      continue
    }
    const nextExpectedRevision = wire[i++] as number
    const position = wire[i++] as number
    if (kind === WROTE_NOTHING) {
      outcomes.push({ ok: true, nextExpectedRevision, position, written: null })
      continue
    }
    const firstPosition = wire[i++] as number
    const firstRevision = wire[i++] as number
    const prevHash = wire[i++] as string | null
    const count = wire[i++] as number
    const ids: string[] = []
    const hashes: string[] = []
    for (let n = 0; n < count; n++) {
      ids.push(wire[i++] as string)
      hashes.push(wire[i++] as string)
    }
    outcomes.push({ ok: true, nextExpectedRevision, position, written: { firstPosition, firstRevision, prevHash, ids, hashes } })
  }
  return outcomes
}

/** An error as it crosses between threads: plain data, with its SQLite code (rebuilt by the main thread). */
export interface ErrorDescription {
  readonly name: string
  readonly message: string
  readonly code?: string
}

export function describeError(error: unknown): ErrorDescription {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) }
  const code: unknown = (error as Error & { code?: unknown }).code
  return typeof code === 'string' ? { name: error.name, message: error.message, code } : { name: error.name, message: error.message }
}
