/**
 * Events of the `user-{accountId}-{userId}` stream: an owner of the console, their password (as a
 * memory-hard hash, never the password), the one-time links that set it, and their sessions (as
 * SHA-256 hashes of the cookie's token, never the token). The account id in the stream name puts a
 * user in their account's slice of the log (audit verify and export).
 */
import type { DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export type UserRole = 'owner'

export type UserCreated = DomainEvent<'UserCreated', { userId: string; accountId: string; email: string; role: UserRole; createdAt: string }>
export type PasswordSetupIssued = DomainEvent<'PasswordSetupIssued', { setupId: string; tokenHash: string; issuedAt: string; expiresAt: string }>
export type PasswordSet = DomainEvent<'PasswordSet', { setupId: string; passwordHash: string; setAt: string }>
export type SignedIn = DomainEvent<'SignedIn', { sessionId: string; tokenHash: string; signedInAt: string; expiresAt: string }>
/** An active session's idle clock restarted (at most once an hour per session, so the log does not grow per click). */
export type SessionRenewed = DomainEvent<'SessionRenewed', { sessionId: string; renewedAt: string }>
export type SignedOut = DomainEvent<'SignedOut', { sessionId: string; signedOutAt: string }>
export type SessionRevoked = DomainEvent<'SessionRevoked', { sessionId: string; reason: 'password_set'; revokedAt: string }>

export type UserEvent = UserCreated | PasswordSetupIssued | PasswordSet | SignedIn | SessionRenewed | SignedOut | SessionRevoked

export function userStream(accountId: string, userId: string): string {
  return `user-${accountId}-${userId}`
}

export const USER_SUMMARIES: EventSummaries<UserEvent> = {
  UserCreated: (d) => `console user ${printable(d.email)} created (${printable(d.role)})`,
  PasswordSetupIssued: (d) => `set-password link ${d.setupId} issued, valid until ${printable(d.expiresAt)}`,
  PasswordSet: (d) => `password set through link ${d.setupId}`,
  SignedIn: (d) => `signed in: session ${d.sessionId}, ends by ${printable(d.expiresAt)}`,
  SessionRenewed: (d) => `session ${d.sessionId} active`,
  SignedOut: (d) => `signed out: session ${d.sessionId}`,
  SessionRevoked: (d) => `session ${d.sessionId} ended (${printable(d.reason).replace(/_/g, ' ')})`,
}
