/**
 * How Cal.com bookings stand for the port's events. A booking Leadline makes carries the event's UID in
 * its metadata (`leadlineUid`); Cal.com copies the metadata when a booking is moved, and a move makes a
 * new booking (new uid) while the old one is cancelled and points to it, so one UID can name a chain of
 * bookings: the event is the chain's current one. Cal.com has no sync token, so the change token is a
 * snapshot of the bookings it has seen, kept in the token string itself.
 */
import { createHash } from 'node:crypto'
import type { CalBooking } from './calcom-api.ts'

/** The metadata key under which a booking carries its Leadline event UID. */
export const LEADLINE_UID = 'leadlineUid'

/** The Leadline event UID a booking carries, or null for the owner's other bookings. */
export function leadlineUidOf(booking: CalBooking): string | null {
  const uid = booking.metadata?.[LEADLINE_UID]
  return typeof uid === 'string' && uid !== '' ? uid : null
}

/** A booking that still holds its time: accepted, or waiting for the owner's confirmation. */
export function isLive(booking: CalBooking): boolean {
  return booking.status === 'accepted' || booking.status === 'pending'
}

/**
 * The booking that stands for an event among those carrying its UID: a live one (the newest if a move
 * left several), else the last one of the chain (cancelled or rejected: the event is gone).
 */
export function currentOf(bookings: readonly CalBooking[]): CalBooking | null {
  const newestFirst = [...bookings].sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || Date.parse(b.start) - Date.parse(a.start))
  return newestFirst.find(isLive) ?? newestFirst.find((b) => b.rescheduledToUid == null) ?? newestFirst[0] ?? null
}

/** The most bookings a token remembers: those starting first; one beyond is reported as changed when it enters. */
export const SNAPSHOT_LIMIT = 2000
const TOKEN = /^calcom1\.(\d+)\.([A-Za-z0-9_-]*)$/
/** Bytes of each hash in the token: a UID's and its booking state's. 2^48 makes a collision between a few thousand negligible. */
const HASH_BYTES = 6

export interface Snapshot {
  /** Hash of a UID → hash of its live booking's state (booking uid, start, status). */
  readonly live: ReadonlyMap<string, string>
}

export interface LiveEvent {
  readonly uid: string
  readonly booking: CalBooking
}

function hash(text: string): Buffer {
  return createHash('sha256').update(text).digest().subarray(0, HASH_BYTES)
}

function stateOf(booking: CalBooking): string {
  return `${booking.uid}|${Date.parse(booking.start)}|${booking.status}`
}

/** The token for these live events: `calcom1.<event type>.<base64url of (uid hash, state hash) pairs>`, at most SNAPSHOT_LIMIT of them. */
export function encodeSnapshot(eventTypeId: number, live: readonly LiveEvent[]): string {
  const kept = [...live].sort((a, b) => Date.parse(a.booking.start) - Date.parse(b.booking.start)).slice(0, SNAPSHOT_LIMIT)
  const bytes = Buffer.concat(kept.flatMap((event) => [hash(event.uid), hash(stateOf(event.booking))]))
  return `calcom1.${eventTypeId}.${bytes.toString('base64url')}`
}

/** The snapshot a token holds, or null when it is not one of ours for this event type (then: start over). */
export function decodeSnapshot(eventTypeId: number, token: string | null): Snapshot | null {
  const match = token === null ? null : TOKEN.exec(token)
  if (match === null || Number(match[1]) !== eventTypeId) return null
  const bytes = Buffer.from(match[2]!, 'base64url')
  if (bytes.length % (2 * HASH_BYTES) !== 0) return null
  const live = new Map<string, string>()
  for (let at = 0; at < bytes.length; at += 2 * HASH_BYTES) {
    live.set(bytes.subarray(at, at + HASH_BYTES).toString('hex'), bytes.subarray(at + HASH_BYTES, at + 2 * HASH_BYTES).toString('hex'))
  }
  return { live }
}

/** Live events whose booking differs from the snapshot's (new, moved, confirmed). */
export function changedSince(snapshot: Snapshot, live: readonly LiveEvent[]): LiveEvent[] {
  return live.filter((event) => snapshot.live.get(hash(event.uid).toString('hex')) !== hash(stateOf(event.booking)).toString('hex'))
}

/** UIDs the snapshot held live whose current booking is cancelled or rejected. */
export function goneSince(snapshot: Snapshot, gone: readonly string[]): string[] {
  return gone.filter((uid) => snapshot.live.has(hash(uid).toString('hex')))
}
