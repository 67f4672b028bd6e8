/** What the adapter's parts share about the client: its errors, the pauses between attempts, whole reads, a stream's head. */
import type { AllStreamResolvedEvent, Position, ResolvedEvent } from '@eventstore/db-client'

export interface StreamHead {
  readonly revision: number
  readonly hash: string
  readonly position: number
}

type ClientError = Error & { type?: string; actualVersion?: bigint | string }

export function errorType(error: unknown): string | undefined {
  return error instanceof Error ? (error as ClientError).type : undefined
}

/** The connection (not the request) failed: worth trying again once the client has reconnected. */
export function isTransient(error: unknown): boolean {
  const type = errorType(error)
  return type === 'unavailable' || type === 'not-leader' || type === 'deadline-exceeded' || type === 'cancelled' || type === 'timeout'
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Jittered, growing pauses between attempts. */
export function backoff(attempt: number, capMs = 200): Promise<void> {
  return sleep(Math.random() * Math.min(capMs, 2 * attempt))
}

export function currentRevision(error: unknown): number {
  const actual = (error as ClientError).actualVersion
  return typeof actual === 'bigint' ? Number(actual) : -1
}

/**
 * Reads a whole response. Never stop iterating a read midway: the client keeps an abandoned call
 * among the streams `dispose()` waits for, and closing the store would hang.
 */
export async function drain<T>(read: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of read) out.push(item)
  return out
}

export function lastPosition(resolved: ReadonlyArray<ResolvedEvent | AllStreamResolvedEvent>): Position | undefined {
  for (let i = resolved.length - 1; i >= 0; i--) {
    const position = resolved[i]?.event?.position
    if (position) return position
  }
  return undefined
}
