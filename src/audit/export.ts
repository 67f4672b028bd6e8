/**
 * An account's slice of the log as JSON Lines, one event per line with its hashes, so an auditor can
 * re-verify it with nothing but an RFC 8785 canonicaliser and SHA-256 (docs/audit.md#verify-an-export).
 *
 * Recordings and transcripts stay out by default (spec §1.7), as everywhere else: an event that
 * holds one is exported with it removed and `"redacted": true`. Its own hash can then not be
 * recomputed, but the chain still runs through it (the next event's `prevHash` is its `hash`).
 * `includeRecordings` keeps recordings and transcripts. The hash of a secret (webhook token, API
 * key, session, set-password link, console password) and a sealed secret (an outbound events signing
 * secret, a page access token: src/domain/sealed-secrets.ts) never leave, whatever the flags.
 */
import { isDeepStrictEqual } from 'node:util'
import type { RecordedEvent } from '../domain/event.ts'
import type { EventStore } from '../eventstore/event-store.port.ts'
import { withoutRecordings } from '../domain/recordings-policy.ts'
import { withoutSealedSecrets } from '../domain/sealed-secrets.ts'
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
  /** Present (true) when recordings, transcripts or a secret's hash were removed from `data`. */
  readonly redacted?: true
}

/** What an export line left out of its event's data. */
export interface Removed {
  readonly recordings: boolean
  readonly secrets: boolean
}

export function exportLine(event: RecordedEvent, includeRecordings: boolean): ExportLine & { readonly removed?: Removed } {
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
  const withoutMedia = includeRecordings ? event.data : (withoutRecordings(event.data) ?? null)
  const filtered = withoutSealedSecrets(withoutSecretHashes(withoutMedia)) ?? null
  const recordings = !isDeepStrictEqual(withoutMedia, event.data)
  const secrets = filtered !== withoutMedia
  return recordings || secrets ? { ...line, data: filtered, redacted: true, removed: { recordings, secrets } } : line
}

/**
 * The fields of the log's events that hold a secret's hash. A password hash lets anyone holding the
 * file guess at the password offline; a token's or key's SHA-256 is what a stolen one is checked against.
 */
export const SECRET_HASH_FIELDS: readonly string[] = ['passwordHash', 'tokenHash', 'keyHash', 'setupTokenHash']

function withoutSecretHashes(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || !SECRET_HASH_FIELDS.some((field) => Object.hasOwn(data, field))) return data
  return Object.fromEntries(Object.entries(data).filter(([field]) => !SECRET_HASH_FIELDS.includes(field)))
}

export interface ExportSummary {
  readonly events: number
  readonly streams: number
  /** Events exported without their recording or transcript. */
  readonly redacted: number
  /** Events exported without a secret's hash or a sealed secret. */
  readonly secretsRemoved: number
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
  let secretsRemoved = 0
  for await (const page of scanLog(store)) {
    let chunk = ''
    for (const event of page) {
      if (!belongsToAccount(event.stream, accountId)) continue
      const { removed, ...line } = exportLine(event, options.includeRecordings === true)
      if (removed?.recordings) redacted++
      if (removed?.secrets) secretsRemoved++
      streams.add(event.stream)
      events++
      chunk += `${JSON.stringify(line)}\n`
    }
    if (chunk !== '') await write(chunk)
  }
  return { events, streams: streams.size, redacted, secretsRemoved }
}
