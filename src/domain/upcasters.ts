/**
 * Old events are read through upcasters: each maps one (type, schemaVersion) to the next version, so
 * deciders and projections only ever see today's shapes. Writers stamp every new event with
 * `schemaVersionOf(type)`; a type without an entry in CURRENT_SCHEMA_VERSION is at version 1.
 *
 * The versions so far (docs/audit.md#schema-versions):
 * - `LeadReceived` 1 → 2: `fields.phoneRaw` (the number as the sender wrote it) became required.
 *   Version 1 events may lack it; they read with the E.164 number in its place, the best we know.
 */
import type { RecordedEvent } from './event.ts'

type Upcaster = (data: unknown) => unknown

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** LeadReceived v1 → v2: fill `fields.phoneRaw` from `fields.phone` when the sender's form was not kept. */
function leadReceivedV1(data: unknown): unknown {
  if (!isRecord(data) || !isRecord(data.fields)) return data
  const fields = data.fields
  if (typeof fields.phoneRaw === 'string') return data
  return { ...data, fields: { ...fields, phoneRaw: typeof fields.phone === 'string' ? fields.phone : '' } }
}

/** `${type}@${fromVersion}` → the function that lifts its data to fromVersion + 1. */
const UPCASTERS: ReadonlyMap<string, Upcaster> = new Map([['LeadReceived@1', leadReceivedV1]])

/** The version writers use today, per event type (absent: 1). */
export const CURRENT_SCHEMA_VERSION: Readonly<Record<string, number>> = { LeadReceived: 2 }

/** The schema version a new event of this type is written with. */
export function schemaVersionOf(type: string): number {
  return CURRENT_SCHEMA_VERSION[type] ?? 1
}

export function upcast(event: RecordedEvent): RecordedEvent {
  let version = event.metadata.schemaVersion
  let data = event.data
  for (let upcaster = UPCASTERS.get(`${event.type}@${version}`); upcaster; upcaster = UPCASTERS.get(`${event.type}@${version}`)) {
    data = upcaster(data)
    version += 1
  }
  return version === event.metadata.schemaVersion ? event : { ...event, data, metadata: { ...event.metadata, schemaVersion: version } }
}
