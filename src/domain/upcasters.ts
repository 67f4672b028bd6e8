/**
 * Old events are read through upcasters: each maps one (type, schemaVersion) to the next version, so
 * deciders and projections only ever see today's shapes. Every event type is at version 1 today.
 */
import type { RecordedEvent } from '../eventstore/event.ts'

type Upcaster = (data: unknown) => unknown

/** `${type}@${fromVersion}` → the function that lifts its data to fromVersion + 1. */
const UPCASTERS: ReadonlyMap<string, Upcaster> = new Map()

export const CURRENT_SCHEMA_VERSION: Readonly<Record<string, number>> = {}

export function upcast(event: RecordedEvent): RecordedEvent {
  let version = event.metadata.schemaVersion
  let data = event.data
  for (let upcaster = UPCASTERS.get(`${event.type}@${version}`); upcaster; upcaster = UPCASTERS.get(`${event.type}@${version}`)) {
    data = upcaster(data)
    version += 1
  }
  return version === event.metadata.schemaVersion ? event : { ...event, data, metadata: { ...event.metadata, schemaVersion: version } }
}
