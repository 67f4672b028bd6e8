/**
 * A calendar connection half made: Google's consent under way (its `state` and PKCE verifier) or a
 * Cal.com API key waiting for its event type. Kept in the browser as a short-lived cookie sealed by the
 * secret box for this account and this session, so any node behind a load balancer, or the same one
 * after a restart, can finish it, and the server keeps nothing an abandoned consent leaves behind.
 * A consent's state is spent once: the cookie is cleared at the callback, and the states this process
 * has seen stay refused until they expire (another node's replay meets Google's single-use code).
 */
import { timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SecretBox } from '../../integrations/secrets/secret-box.ts'
import { CONSOLE_PREFIX } from './layout.ts'
import { cookieOptions } from './session.ts'

export const PENDING_COOKIE = 'leadline_calendar_pending'
/** Long enough to read Google's screen or look up an event type; a consent left longer starts again. */
export const PENDING_TTL_MS = 10 * 60_000
const PENDING_PATH = `${CONSOLE_PREFIX}/setup/calendar`

export type PendingSetup =
  | { readonly kind: 'google'; readonly state: string; readonly codeVerifier: string }
  | { readonly kind: 'calcom'; readonly apiKey: string; readonly baseUrl: string | null }

interface SealedPending {
  readonly pending: PendingSetup
  readonly expiresAt: number
}

/** Who the pending setup belongs to: it opens only for the same account and the same signed-in session. */
export interface PendingOwner {
  readonly accountId: string
  readonly sessionId: string
}

const purpose = (owner: PendingOwner) => `calendar-setup:${owner.accountId}:${owner.sessionId}`

export class PendingSetups {
  /** Google states spent in this process, until they expire. */
  private readonly spent = new Map<string, number>()

  constructor(private readonly box: SecretBox, private readonly publicUrl: string, private readonly clock: () => Date) {}

  keep(reply: FastifyReply, owner: PendingOwner, pending: PendingSetup): void {
    const sealed: SealedPending = { pending, expiresAt: this.clock().getTime() + PENDING_TTL_MS }
    reply.setCookie(PENDING_COOKIE, this.box.seal(JSON.stringify(sealed), purpose(owner)), this.options(PENDING_TTL_MS / 1000))
  }

  /** The pending setup of this kind, if the cookie holds one for this account and session that has not expired. */
  read<K extends PendingSetup['kind']>(request: FastifyRequest, owner: PendingOwner, kind: K): (Extract<PendingSetup, { kind: K }> & { expiresAt: number }) | null {
    const cookie = request.cookies[PENDING_COOKIE]
    if (cookie === undefined || cookie === '') return null
    let sealed: SealedPending
    try {
      sealed = JSON.parse(this.box.open(cookie, purpose(owner))) as SealedPending
    } catch {
      // Another session's, another account's, another key's, or tampered with: as if there were none.
      return null
    }
    if (sealed.pending.kind !== kind || !(sealed.expiresAt > this.clock().getTime())) return null
    return { ...(sealed.pending as Extract<PendingSetup, { kind: K }>), expiresAt: sealed.expiresAt }
  }

  clear(reply: FastifyReply): void {
    reply.clearCookie(PENDING_COOKIE, this.options())
  }

  /** Spends a consent's state: true the first time; false when it was spent already or does not match what was kept. */
  spend(kept: { readonly state: string; readonly expiresAt: number }, returned: string): boolean {
    const now = this.clock().getTime()
    for (const [state, expiresAt] of this.spent) if (expiresAt <= now) this.spent.delete(state)
    const a = Buffer.from(kept.state)
    const b = Buffer.from(returned)
    if (a.length !== b.length || !timingSafeEqual(a, b) || this.spent.has(kept.state)) return false
    this.spent.set(kept.state, kept.expiresAt)
    return true
  }

  private options(maxAgeSeconds?: number) {
    // Lax, not Strict: Google's redirect back is a top-level navigation from another site, which must carry it.
    return { ...cookieOptions(this.publicUrl, maxAgeSeconds), path: PENDING_PATH }
  }
}
