/**
 * An account's slice of the log as JSON Lines, one event per line with its hashes, so an auditor can
 * re-verify it with nothing but an RFC 8785 canonicaliser and SHA-256 (docs/audit.md#verify-an-export).
 *
 * Recordings and transcripts stay out by default (spec §1.7), as everywhere else: an event that
 * holds one is exported with it removed and `"redacted": true`. Its own hash can then not be
 * recomputed, but the chain still runs through it (the next event's `prevHash` is its `hash`).
 * Console password hashes are left out the same way. `includeRecordings` exports every event
 * exactly as stored.
 */
import { isDeepStrictEqual } from 'node:util'
import type { RecordedEvent } from '../eventstore/event.ts'
import type { EventStore } from '../eventstore/event-store.port.ts'
import { withoutRecordings } from '../http/mcp/recordings-filter.ts'
import { belongsToAccount, scanLog } from './audited-log.ts'

/** One line of an export. The fields the hash covers are exactly those of src/eventstore/hash-chain.ts. */
export interface ExportLine {
  readonly position: number
  readonly stream: string
  readonly revision: number
  readonly id: string
  readonly type: string
  readonly data: unknown
  readonly metadata: RecordedEvent['metadata']
  readonly recordedAt: string
  readonly prevHash: string | null
  readonly hash: string
  /** Present (true) when recordings or transcripts were removed from `data`. */
  readonly redacted?: true
}

export function exportLine(event: RecordedEvent, includeRecordings: boolean): ExportLine {
  const line: ExportLine = {
    position: event.position,
    stream: event.stream,
    revision: event.revision,
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    recordedAt: event.recordedAt,
    prevHash: event.prevHash,
    hash: event.hash,
  }
  if (includeRecordings) return line
  const filtered = withoutPasswordHash(withoutRecordings(event.data) ?? null)
  return isDeepStrictEqual(filtered, event.data) ? line : { ...line, data: filtered, redacted: true }
}

/** A console password's hash (`PasswordSet`) stays out too: it would let anyone holding the file guess at the password offline. */
function withoutPasswordHash(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || !('passwordHash' in data)) return data
  const { passwordHash: _hash, ...rest } = data as Record<string, unknown>
  return rest
}

export interface ExportSummary {
  readonly events: number
  readonly streams: number
  readonly redacted: number
}

/** Writes every event of the account, in log order, one JSON line each. Read only. */
export async function exportAccount(
  store: EventStore,
  accountId: string,
  write: (line: string) => void | Promise<void>,
  options: { includeRecordings?: boolean } = {},
): Promise<ExportSummary> {
  const streams = new Set<string>()
  let events = 0
  let redacted = 0
  for await (const page of scanLog(store)) {
    let chunk = ''
    for (const event of page) {
      if (!belongsToAccount(event.stream, accountId)) continue
      const line = exportLine(event, options.includeRecordings === true)
      if (line.redacted) redacted++
      streams.add(event.stream)
      events++
      chunk += `${JSON.stringify(line)}\n`
    }
    if (chunk !== '') await write(chunk)
  }
  return { events, streams: streams.size, redacted }
}
