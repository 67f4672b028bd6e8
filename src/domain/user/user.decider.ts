/**
 * The user aggregate: an account owner who signs in to the console. Which password and which
 * sessions are live is decided here from events alone; secrets arrive as hashes (randomness and
 * the memory-hard hash are not pure, so the command side makes them: src/commands/users.ts).
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import { sameHash } from '../shared/ids.ts'
import type { UserEvent, UserRole } from './user.events.ts'

/** A session ends after this long without a request (renewals come at most once an hour, so up to an hour sooner). */
export const SESSION_IDLE_MS = 12 * 3600_000
/** A session ends this long after sign-in, however active. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000
/** An active session's idle clock is restarted (one SessionRenewed) when it is older than this. */
export const SESSION_RENEW_AFTER_MS = 3600_000
/** A set-password link works once, within this long. */
export const SETUP_LINK_TTL_MS = 24 * 3600_000
/** Sessions kept per user; signing in once more ends the oldest. */
export const MAX_SESSIONS = 20

export const MAX_EMAIL = 254

export interface IssuedHash {
  readonly id: string
  readonly hash: string
}

export type UserCommand =
  | { type: 'CreateUser'; userId: string; accountId: string; email: string; setup: IssuedHash }
  | { type: 'IssuePasswordSetup'; setup: IssuedHash }
  | { type: 'SetPassword'; setupTokenHash: string; passwordHash: string }
  | { type: 'SignIn'; session: IssuedHash }
  | { type: 'RenewSession'; sessionId: string }
  | { type: 'SignOut'; sessionId: string }

export interface SessionState {
  readonly sessionId: string
  readonly tokenHash: string
  readonly signedInAt: string
  readonly lastActiveAt: string
  readonly expiresAt: string
}

export interface UserState {
  readonly exists: boolean
  readonly userId: string
  readonly accountId: string
  readonly email: string
  readonly role: UserRole
  readonly createdAt: string
  /** The memory-hard hash of the password (see password-hasher.ts); null until a link sets it. */
  readonly passwordHash: string | null
  /** The one pending set-password link; a newer link replaces it. */
  readonly setup: { readonly setupId: string; readonly tokenHash: string; readonly expiresAt: string } | null
  /** Sessions that were neither signed out nor revoked (they may still have expired: see sessionLive). */
  readonly sessions: Readonly<Record<string, SessionState>>
}

/** Lower-cased and trimmed: one person, one spelling. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

export function validEmail(email: string): boolean {
  return email.length <= MAX_EMAIL && /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(email)
}

/** True while the session may be used at `now`: not ended, not idle too long, not past its absolute end. */
export function sessionLive(session: SessionState, now: Date): boolean {
  const t = now.getTime()
  return t < Date.parse(session.expiresAt) && t < Date.parse(session.lastActiveAt) + SESSION_IDLE_MS
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const { [key]: _dropped, ...rest } = record
  return rest
}

/** A new one-time set-password link, valid for SETUP_LINK_TTL_MS from `now`. */
function setupIssued(setup: IssuedHash, now: Date): UserEvent {
  return { type: 'PasswordSetupIssued', data: { setupId: setup.id, tokenHash: setup.hash, issuedAt: now.toISOString(), expiresAt: new Date(now.getTime() + SETUP_LINK_TTL_MS).toISOString() } }
}

function requireUser(state: UserState): void {
  if (!state.exists) throw new DomainError('user_not_found', 'no such user')
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: () => ({
    exists: false, userId: '', accountId: '', email: '', role: 'owner', createdAt: '', passwordHash: null, setup: null, sessions: {},
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'UserCreated':
        return { ...state, exists: true, userId: event.data.userId, accountId: event.data.accountId, email: event.data.email, role: event.data.role, createdAt: event.data.createdAt }
      case 'PasswordSetupIssued':
        return { ...state, setup: { setupId: event.data.setupId, tokenHash: event.data.tokenHash, expiresAt: event.data.expiresAt } }
      case 'PasswordSet':
        return { ...state, passwordHash: event.data.passwordHash, setup: state.setup?.setupId === event.data.setupId ? null : state.setup }
      case 'SignedIn': {
        // Sessions past their absolute end can never come back: forget them as new ones arrive.
        const at = Date.parse(event.data.signedInAt)
        const kept = Object.values(state.sessions).filter((s) => Date.parse(s.expiresAt) > at)
        const newest = kept.sort((a, b) => a.signedInAt.localeCompare(b.signedInAt)).slice(-(MAX_SESSIONS - 1))
        const session: SessionState = {
          sessionId: event.data.sessionId, tokenHash: event.data.tokenHash, signedInAt: event.data.signedInAt, lastActiveAt: event.data.signedInAt, expiresAt: event.data.expiresAt,
        }
        return { ...state, sessions: Object.fromEntries([...newest, session].map((s) => [s.sessionId, s])) }
      }
      case 'SessionRenewed': {
        const session = state.sessions[event.data.sessionId]
        if (!session) return state
        return { ...state, sessions: { ...state.sessions, [session.sessionId]: { ...session, lastActiveAt: event.data.renewedAt } } }
      }
      case 'SignedOut':
      case 'SessionRevoked':
        return { ...state, sessions: without(state.sessions, event.data.sessionId) }
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    switch (command.type) {
      case 'CreateUser': {
        if (state.exists) throw new DomainError('user_exists', 'this account already has a user with that email')
        const email = normaliseEmail(command.email)
        if (!validEmail(email)) throw new DomainError('invalid_email', `"${command.email}" is not an email address`)
        return [
          { type: 'UserCreated', data: { userId: command.userId, accountId: command.accountId, email, role: 'owner', createdAt: at } },
          setupIssued(command.setup, now),
        ]
      }
      case 'IssuePasswordSetup':
        requireUser(state)
        return [setupIssued(command.setup, now)]
      case 'SetPassword': {
        requireUser(state)
        const setup = state.setup
        if (!setup || !sameHash(setup.tokenHash, command.setupTokenHash) || now.getTime() >= Date.parse(setup.expiresAt)) {
          throw new DomainError('setup_link_invalid', 'this set-password link has expired or was already used: ask for a new one')
        }
        // A new password ends every session signed in with the old one.
        return [
          { type: 'PasswordSet', data: { setupId: setup.setupId, passwordHash: command.passwordHash, setAt: at } },
          ...Object.keys(state.sessions).map((sessionId) => ({ type: 'SessionRevoked' as const, data: { sessionId, reason: 'password_set' as const, revokedAt: at } })),
        ]
      }
      case 'SignIn':
        requireUser(state)
        if (state.passwordHash === null) throw new DomainError('invalid_credentials', 'wrong email or password')
        return [{ type: 'SignedIn', data: { sessionId: command.session.id, tokenHash: command.session.hash, signedInAt: at, expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString() } }]
      case 'RenewSession': {
        const session = state.sessions[command.sessionId]
        if (!session || !sessionLive(session, now)) return []
        if (now.getTime() - Date.parse(session.lastActiveAt) < SESSION_RENEW_AFTER_MS) return []
        return [{ type: 'SessionRenewed', data: { sessionId: session.sessionId, renewedAt: at } }]
      }
      case 'SignOut':
        if (!state.sessions[command.sessionId]) return []
        return [{ type: 'SignedOut', data: { sessionId: command.sessionId, signedOutAt: at } }]
    }
  },
}
