/**
 * How a Leadline event is stored in EventStoreDB, and read back: JSON data; JSON metadata holding
 * Leadline's own metadata plus `$leadline` (the hash chain and our recordedAt) and `$correlationId`
 * / `$causationId` (EventStoreDB's conventions, so its by-correlation projection works). Keys that
 * start with `$` are the store's; they never reach `RecordedEvent.metadata`.
 */
import { createHash } from 'node:crypto'
import type { AllStreamResolvedEvent, EventData, JSONType, ResolvedEvent } from '@eventstore/db-client'
import type { EventMetadata, RecordedEvent } from '../../domain/event.ts'

/** The metadata key of Leadline's bookkeeping on every stored event. */
export const LEADLINE_METADATA_KEY = '$leadline'

/** What `$leadline` holds. `id` only when Leadline's id is not a UUID EventStoreDB can store as is. */
export interface LeadlineStamp {
  readonly recordedAt: string
  readonly prevHash: string | null
  readonly hash: string
  readonly id?: string
}

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * The EventStoreDB event id for a Leadline event id. EventStoreDB ids are UUIDs, and it returns them
 * lower-cased, so anything else maps to a UUID derived from the id (version 8, name-based), which
 * keeps a retried append idempotent: the same Leadline id always gives the same EventStoreDB id.
 */
export function esdbEventId(id: string): string {
  if (CANONICAL_UUID.test(id)) return id
  const bytes = createHash('sha256').update(`leadline-event-id:${id}`, 'utf8').digest().subarray(0, 16)
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x80
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The highest commit position a JavaScript number holds exactly. */
const MAX_POSITION = BigInt(Number.MAX_SAFE_INTEGER)
/** What servers before 22.6 send for events read from a stream: no $all position. */
const NO_POSITION = 2n ** 64n - 1n

/**
 * The port's position for an EventStoreDB commit position. Commit positions are byte offsets in
 * the transaction log, so a number is exact up to 2^53 bytes (8 PiB) of log, far beyond any
 * Leadline database; past that we refuse rather than round. For events written through gRPC,
 * commit == prepare and each event has its own commit position, so the port's strictly
 * increasing, non-contiguous positions map one to one.
 */
export function toPortPosition(commit: bigint): number {
  if (commit === NO_POSITION) {
    throw new Error('EventStoreDB sent no $all position with a stream read: Leadline needs EventStoreDB 22.10 or later')
  }
  if (commit < 0n || commit > MAX_POSITION) throw new RangeError(`commit position ${commit} does not fit in a JavaScript number`)
  return Number(commit)
}

/** The EventStoreDB position of a port position (commit and prepare are equal for our events). */
export function toEsdbPosition(position: number): { commit: bigint; prepare: bigint } {
  const value = BigInt(position)
  return { commit: value, prepare: value }
}

/** True for events of the server's own: system streams (`$…`, metadata `$$…`) and system event types. */
export function isSystemEvent(stream: string, type: string): boolean {
  return stream.startsWith('$') || type.startsWith('$')
}

/** The event to append for one Leadline event whose hash has been computed. */
export function toEventData(
  id: string,
  type: string,
  data: unknown,
  metadata: EventMetadata,
  stamp: LeadlineStamp,
): EventData {
  const esdbId = esdbEventId(id)
  const stored: Record<string, unknown> = {
    ...metadata,
    $correlationId: metadata.correlationId,
    ...(metadata.causationId !== null ? { $causationId: metadata.causationId } : {}),
    [LEADLINE_METADATA_KEY]: esdbId === id ? stamp : { ...stamp, id },
  }
  return { id: esdbId, type, contentType: 'application/json', data: data as JSONType, metadata: stored as JSONType }
}

/**
 * The Leadline event a resolved EventStoreDB event holds, or null for what is not Leadline's:
 * system events and link events. An event another tool wrote to one of our streams reads with
 * EventStoreDB's `created` as recordedAt and an empty hash (it fails an audit, as it should).
 */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event
  if (event === undefined || resolved.link !== undefined) return null
  if (isSystemEvent(event.streamId, event.type)) return null
  if (event.position === undefined) throw new Error(`event ${event.id} of ${event.streamId} came without a position`)
  const stored = event.metadata
  const fields: Record<string, unknown> = stored !== undefined && !(stored instanceof Uint8Array) && typeof stored === 'object' && !Array.isArray(stored) ? stored : {}
  const metadata: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (!key.startsWith('$')) metadata[key] = value
  const stamp = fields[LEADLINE_METADATA_KEY] as Partial<LeadlineStamp> | undefined
  return {
    id: typeof stamp?.id === 'string' ? stamp.id : event.id,
    type: event.type,
    data: event.isJson ? event.data : null,
    metadata: metadata as unknown as EventMetadata,
    stream: event.streamId,
    revision: Number(event.revision),
    position: toPortPosition(event.position.commit),
    recordedAt: typeof stamp?.recordedAt === 'string' ? stamp.recordedAt : event.created.toISOString(),
    prevHash: typeof stamp?.prevHash === 'string' ? stamp.prevHash : null,
    hash: typeof stamp?.hash === 'string' ? stamp.hash : '',
  }
}
