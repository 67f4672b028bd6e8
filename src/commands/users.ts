/**
 * Console users: the operator creates an owner and a one-time set-password link; the owner sets a
 * password, signs in and out. Session and link tokens are random and prefixed like every other
 * secret, shown once (the cookie, the link) and kept only as SHA-256 hashes. A token is found through
 * the users read model, then checked against the user's own stream, so a sign-out, a revocation or a
 * new password ends a session on the very next request.
 */
import { DomainError } from '../domain/shared/decider.ts'
import { hashSecret, issueSecret, sameHash } from '../domain/shared/ids.ts'
import {
  MAX_EMAIL, normaliseEmail, SESSION_RENEW_AFTER_MS, sessionLive, userDecider, validEmail, type UserState,
} from '../domain/user/user.decider.ts'
import { userStream } from '../domain/user/user.events.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { UsersQueries } from '../../projections/users/users.queries.ts'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PasswordHasher } from './password-hasher.ts'
import { sha256Hex } from '../domain/shared/sha256.ts'

export const SESSION_TOKEN_PREFIX = 'llsess_'
export const PASSWORD_SETUP_PREFIX = 'llpw_'
const MAX_TOKEN_LENGTH = 128

/** Who a console request is made by: the user, their account, and the session. */
export interface SessionPrincipal {
  readonly user: UserState
  readonly accountId: string
  readonly sessionId: string
}

export interface PasswordLink {
  readonly userId: string
  readonly accountId: string
  readonly email: string
  /** The one-time set-password token: shown once (in the link), never stored. */
  readonly token: string
  readonly expiresAt: string
}

/** The console page a set-password token opens, under the service's public URL. */
export function setPasswordUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/app/set-password?token=${encodeURIComponent(token)}`
}

/** The user id of an email: one stream per person per account, so the same email cannot be added twice. */
export function userIdOf(email: string): string {
  return `usr_${sha256Hex(normaliseEmail(email)).slice(0, 16)}`
}

function userContext(user: { userId: string }, correlationId?: string): CommandContext {
  return { actor: { kind: 'user', id: user.userId }, ...(correlationId ? { correlationId } : {}) }
}

export class Users {
  private readonly hasher: PasswordHasher

  constructor(
    private readonly commands: CommandHandler,
    private readonly runner: ProjectionRunner,
    private readonly queries: UsersQueries,
    private readonly options: { readonly clock: () => Date; readonly scryptLogN?: number },
  ) {
    this.hasher = new PasswordHasher(options.scryptLogN)
  }

  /** `leadline user create`: the account's owner, and a one-time link to set their password. */
  async create(accountId: string, email: string, context: CommandContext): Promise<PasswordLink> {
    const normalised = normaliseEmail(email)
    if (!validEmail(normalised)) throw new DomainError('invalid_email', `"${email}" is not an email address`)
    await this.runner.catchUp()
    // One email signs in to one account: the sign-in form asks for nothing else.
    const elsewhere = this.queries.withEmail(normalised).find((u) => u.accountId !== accountId)
    if (elsewhere) throw new DomainError('user_exists', `${normalised} is already a user of account ${elsewhere.accountId}`)
    const userId = userIdOf(normalised)
    const setup = issueSecret(PASSWORD_SETUP_PREFIX, 'pws')
    const result = await this.commands.handle(userStream(accountId, userId), userDecider, { type: 'CreateUser', userId, accountId, email: normalised, setup: setup.stored }, context)
    return this.link(result.state, setup.shown.secret)
  }

  /** `leadline user link`: a new one-time link for an existing user (the previous one stops working). */
  async issueLink(accountId: string, email: string, context: CommandContext): Promise<PasswordLink> {
    const setup = issueSecret(PASSWORD_SETUP_PREFIX, 'pws')
    const result = await this.commands.handle(userStream(accountId, userIdOf(email)), userDecider, { type: 'IssuePasswordSetup', setup: setup.stored }, context)
    return this.link(result.state, setup.shown.secret)
  }

  private link(state: UserState, secret: string): PasswordLink {
    return {
      userId: state.userId, accountId: state.accountId, email: state.email,
      token: secret, expiresAt: state.setup?.expiresAt ?? '',
    }
  }

  /** The user a set-password token belongs to while the link is still usable; null otherwise. */
  async userOfSetupToken(token: string | undefined): Promise<UserState | null> {
    const found = await this.find(token, PASSWORD_SETUP_PREFIX, 'password_setup')
    if (!found) return null
    const setup = found.state.setup
    if (!setup || setup.setupId !== found.secretId || this.options.clock().getTime() >= Date.parse(setup.expiresAt)) return null
    return found.state
  }

  /** Sets the password through a one-time link; every session of the user ends. */
  async setPassword(token: string, password: string, correlationId?: string): Promise<UserState> {
    checkPassword(password)
    const user = await this.userOfSetupToken(token)
    if (!user) throw new DomainError('setup_link_invalid', 'this set-password link has expired or was already used: ask for a new one')
    const passwordHash = await this.hasher.hash(password)
    const result = await this.commands.handle(userStream(user.accountId, user.userId), userDecider, { type: 'SetPassword', setupTokenHash: hashSecret(token), passwordHash }, userContext(user, correlationId))
    return result.state
  }

  /** Checks email and password; on success a new session and its token (for the cookie). Null for any mismatch. */
  async signIn(email: string, password: string, correlationId?: string): Promise<{ token: string; principal: SessionPrincipal } | null> {
    const normalised = normaliseEmail(email)
    if (password.length > MAX_PASSWORD_LENGTH || normalised.length > MAX_EMAIL) return null
    let [row] = this.queries.withEmail(normalised)
    if (!row) {
      await this.runner.catchUp()
      ;[row] = this.queries.withEmail(normalised)
    }
    const user = row ? await this.load(row.accountId, row.userId) : null
    if (!user?.exists || user.passwordHash === null) {
      await this.hasher.burn(password)
      return null
    }
    if (!(await this.hasher.verify(password, user.passwordHash))) return null
    const session = issueSecret(SESSION_TOKEN_PREFIX, 'ses')
    const result = await this.commands.handle(userStream(user.accountId, user.userId), userDecider, { type: 'SignIn', session: session.stored }, userContext(user, correlationId))
    return { token: session.shown.secret, principal: { user: result.state, accountId: user.accountId, sessionId: session.stored.id } }
  }

  /** The session a cookie's token names, if it is live now; renews its idle clock when due. */
  async authenticate(token: string | undefined): Promise<SessionPrincipal | null> {
    const found = await this.find(token, SESSION_TOKEN_PREFIX, 'session')
    if (!found) return null
    const now = this.options.clock()
    const session = found.state.sessions[found.secretId]
    if (!session || !sessionLive(session, now)) return null
    let user = found.state
    if (now.getTime() - Date.parse(session.lastActiveAt) >= SESSION_RENEW_AFTER_MS) {
      user = (await this.commands.handle(userStream(user.accountId, user.userId), userDecider, { type: 'RenewSession', sessionId: session.sessionId }, userContext(user))).state
    }
    return { user, accountId: user.accountId, sessionId: session.sessionId }
  }

  async signOut(principal: SessionPrincipal, correlationId?: string): Promise<void> {
    await this.commands.handle(userStream(principal.accountId, principal.user.userId), userDecider, { type: 'SignOut', sessionId: principal.sessionId }, userContext(principal.user, correlationId))
  }

  private async find(token: string | undefined, prefix: string, kind: 'session' | 'password_setup') {
    if (!token || !token.startsWith(prefix) || token.length > MAX_TOKEN_LENGTH) return null
    const hash = hashSecret(token)
    let row = this.queries.secretByHash(hash)
    if (!row) {
      // Issued a moment ago (a sign-in just now, or a link from the CLI in another process).
      await this.runner.catchUp()
      row = this.queries.secretByHash(hash)
    }
    if (!row || row.kind !== kind) return null
    const state = await this.load(row.accountId, row.userId)
    if (!state.exists) return null
    const live = kind === 'session' ? state.sessions[row.secretId]?.tokenHash : state.setup?.setupId === row.secretId ? state.setup.tokenHash : undefined
    return live !== undefined && sameHash(live, hash) ? { state, secretId: row.secretId } : null
  }

  /** The user as their stream says now (the command handler keeps recent streams; this reads the log). */
  private async load(accountId: string, userId: string): Promise<UserState> {
    return (await this.commands.load(userStream(accountId, userId), userDecider)).state
  }
}

/** Refuses a password outside the documented length limits. */
export function checkPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) throw new DomainError('password_too_short', `use at least ${MIN_PASSWORD_LENGTH} characters`)
  if (password.length > MAX_PASSWORD_LENGTH) throw new DomainError('password_too_long', `use at most ${MAX_PASSWORD_LENGTH} characters`)
}
