/**
 * The account aggregate: who the account is, how it is configured, and which credentials are live.
 * Secrets are generated outside (randomness is not pure) and arrive here as hashes.
 */
import { DomainError, type Decider } from '../shared/decider.ts'
import { bookingTypeProblem } from './assistant-booking.ts'
import { DEFAULT_SETTINGS, validateSettingsChange, type AccountSettings } from './account-settings.ts'
import { SCOPES, type AccountEvent, type ConnectedCalendar, type Scope } from './account.events.ts'
import { appointmentType, type AppointmentType } from '../appointments/appointment-type.ts'
import { MAX_FIELD_MAP_SOURCES, sourceName, validateFieldMap, type FieldMap, type FieldMapping } from '../lead/intake/field-map.ts'
import { parseOutboundTypes, type OutboundEventType } from '../outbound-events/outbound-events.ts'
import { isSealed } from '../sealed-secrets.ts'

export interface IssuedSecret {
  readonly id: string
  readonly hash: string
  readonly hint: string
}

export type AccountCommand =
  | { type: 'CreateAccount'; accountId: string; name: string; settings: unknown; webhookToken: IssuedSecret }
  | { type: 'ChangeSettings'; changes: unknown }
  | { type: 'RotateWebhookToken'; newToken: IssuedSecret }
  | { type: 'CreateApiKey'; key: IssuedSecret; scopes: readonly string[]; label: string | null }
  | { type: 'RevokeApiKey'; keyId: string }
  | { type: 'CreateOAuthGrant'; grantId: string; clientId: string; clientName: string; userId: string; scopes: readonly string[] }
  | { type: 'RevokeOAuthGrant'; grantId: string; reason: 'owner' | 'client' | 'refresh_token_reused' }
  /** The key's salted hash (made outside: the salt is random); the key itself never reaches the log. */
  | { type: 'SetGoogleKey'; keyHash: string; salt: string }
  | { type: 'ClearGoogleKey' }
  | { type: 'SetFieldMap'; source: string; mappings: readonly FieldMapping[] }
  | { type: 'RemoveFieldMap'; source: string }
  | { type: 'SubscribeEvents'; subscriptionId: string; url: string; types: readonly string[] | null; sealedSecret: string; secretHint: string }
  | { type: 'RotateEventsSecret'; subscriptionId: string; sealedSecret: string; secretHint: string }
  | { type: 'UnsubscribeEvents'; subscriptionId: string }
  /** The connection's credentials arrive sealed, checked with the provider first (src/commands/calendars.ts). */
  | { type: 'ConnectCalendar'; provider: string; label: string; sealedCredentials: string; calendars: readonly ConnectedCalendar[] }
  | { type: 'DisconnectCalendar' }
  | { type: 'SaveAppointmentType'; input: unknown }
  | { type: 'RemoveAppointmentType'; typeId: string }

/** The account's one calendar connection; its credentials stay sealed. */
export interface CalendarConnectionState {
  readonly provider: string
  readonly label: string
  readonly sealedCredentials: string
  readonly calendars: readonly ConnectedCalendar[]
  readonly connectedAt: string
}

/** At most this many appointment types per account: each is offered to agents by name. */
export const MAX_APPOINTMENT_TYPES = 50

/** A URL that hears the account's outbound events; its secret stays sealed. */
export interface EventSubscriptionState {
  readonly subscriptionId: string
  readonly url: string
  readonly types: readonly OutboundEventType[] | null
  readonly sealedSecret: string
  readonly secretHint: string
  readonly subscribedAt: string
}

/** At most this many subscriptions per account: each one multiplies every event's deliveries. */
export const MAX_EVENT_SUBSCRIPTIONS = 10

export interface ApiKeyState {
  readonly keyId: string
  readonly keyHash: string
  readonly hint: string
  readonly scopes: readonly Scope[]
  readonly label: string | null
  readonly createdAt: string
  readonly revokedAt: string | null
}

/** An OAuth client's consented access to the account (one account per grant, as one account per key). */
export interface OAuthGrantState {
  readonly grantId: string
  readonly clientId: string
  readonly clientName: string
  readonly userId: string
  readonly scopes: readonly Scope[]
  readonly createdAt: string
  readonly revokedAt: string | null
}

export interface AccountState {
  readonly exists: boolean
  readonly accountId: string
  readonly name: string
  readonly createdAt: string
  readonly settings: AccountSettings
  /** The one live webhook token; rotation replaces it at once. */
  readonly webhookToken: { readonly tokenId: string; readonly tokenHash: string; readonly hint: string } | null
  /** By key id. A Map, so an id such as `constructor` or `__proto__` is looked up as itself, never found on a prototype. */
  readonly apiKeys: ReadonlyMap<string, ApiKeyState>
  /** OAuth grants by grant id, revoked ones kept with their time. */
  readonly oauthGrants: ReadonlyMap<string, OAuthGrantState>
  /** The Google lead-form key's salted hash; null when none is set (Google's leads are then refused). */
  readonly googleKey: { readonly keyHash: string; readonly salt: string; readonly setAt: string } | null
  /** Each lead source's field map, by source name. */
  readonly fieldMaps: ReadonlyMap<string, { readonly mappings: FieldMap; readonly setAt: string }>
  /** Outbound events subscriptions by id (removed ones are gone). */
  readonly subscriptions: ReadonlyMap<string, EventSubscriptionState>
  /** The calendar appointments are booked into; null when none is connected. */
  readonly calendar: CalendarConnectionState | null
  /** What leads can book, by type id, in the order they were first saved. */
  readonly appointmentTypes: ReadonlyMap<string, AppointmentType>
}

export const MAX_ACCOUNT_NAME = 200
export const MAX_KEY_LABEL = 100
export const MAX_CALENDAR_LABEL = 200

function requireAccount(state: AccountState): void {
  if (!state.exists) throw new DomainError('account_not_found', 'account not found')
}

function requireSubscription(state: AccountState, subscriptionId: string): void {
  if (!state.subscriptions.has(subscriptionId)) throw new DomainError('subscription_not_found', `no events subscription ${subscriptionId} in this account`)
}

/** An http(s) URL without credentials in it, at most 2048 characters: where events are posted. */
function subscriberUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    throw new DomainError('invalid_url', 'the subscriber URL must be an absolute http(s) URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DomainError('invalid_url', 'the subscriber URL must be an http(s) URL')
  if (url.username !== '' || url.password !== '') throw new DomainError('invalid_url', 'the subscriber URL must not hold a user name or password: the signature authenticates each event')
  if (url.href.length > 2048) throw new DomainError('invalid_url', 'the subscriber URL must be at most 2048 characters')
  return url.href
}

function validateScopes(scopes: readonly string[]): Scope[] {
  const unique = [...new Set(scopes.map((s) => s.trim().toLowerCase()).filter((s) => s !== ''))]
  if (unique.length === 0) throw new DomainError('invalid_scopes', `at least one scope is needed (${SCOPES.join(', ')})`)
  const unknown = unique.filter((s) => !(SCOPES as readonly string[]).includes(s))
  if (unknown.length > 0) {
    throw new DomainError('invalid_scopes', `unknown scope ${unknown.join(', ')} (valid: ${SCOPES.join(', ')})`)
  }
  // A stable order so the same grant always reads the same.
  return SCOPES.filter((s) => unique.includes(s))
}

/** The same type, member by member (whatever order its members were recorded in). */
function sameType(a: AppointmentType, b: AppointmentType): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof AppointmentType>
  return [...keys].every((key) => a[key] === b[key])
}

export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState> = {
  initialState: () => ({
    exists: false,
    accountId: '',
    name: '',
    createdAt: '',
    settings: DEFAULT_SETTINGS,
    webhookToken: null,
    apiKeys: new Map(),
    oauthGrants: new Map(),
    googleKey: null,
    fieldMaps: new Map(),
    subscriptions: new Map(),
    calendar: null,
    appointmentTypes: new Map(),
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'AccountCreated':
        return {
          ...state,
          exists: true,
          accountId: event.data.accountId,
          name: event.data.name,
          createdAt: event.data.createdAt,
          settings: { ...DEFAULT_SETTINGS, ...event.data.settings },
        }
      case 'AccountSettingsChanged':
        return { ...state, settings: { ...state.settings, ...event.data.changes } }
      case 'WebhookTokenIssued':
        return {
          ...state,
          webhookToken: { tokenId: event.data.tokenId, tokenHash: event.data.tokenHash, hint: event.data.hint },
        }
      case 'WebhookTokenRevoked':
        return state.webhookToken?.tokenId === event.data.tokenId ? { ...state, webhookToken: null } : state
      case 'ApiKeyCreated':
        return {
          ...state,
          apiKeys: new Map(state.apiKeys).set(event.data.keyId, {
            keyId: event.data.keyId,
            keyHash: event.data.keyHash,
            hint: event.data.hint,
            scopes: event.data.scopes,
            label: event.data.label,
            createdAt: event.data.createdAt,
            revokedAt: null,
          }),
        }
      case 'ApiKeyRevoked': {
        const key = state.apiKeys.get(event.data.keyId)
        if (!key) return state
        return { ...state, apiKeys: new Map(state.apiKeys).set(key.keyId, { ...key, revokedAt: event.data.revokedAt }) }
      }
      case 'OAuthGrantCreated': {
        const { grantId, clientId, clientName, userId, scopes, createdAt } = event.data
        return { ...state, oauthGrants: new Map(state.oauthGrants).set(grantId, { grantId, clientId, clientName, userId, scopes, createdAt, revokedAt: null }) }
      }
      case 'OAuthGrantRevoked': {
        const grant = state.oauthGrants.get(event.data.grantId)
        if (!grant) return state
        return { ...state, oauthGrants: new Map(state.oauthGrants).set(grant.grantId, { ...grant, revokedAt: event.data.revokedAt }) }
      }
      case 'GoogleKeySet':
        return { ...state, googleKey: { keyHash: event.data.keyHash, salt: event.data.salt, setAt: event.data.setAt } }
      case 'GoogleKeyCleared':
        return { ...state, googleKey: null }
      case 'SourceFieldMapSet':
        return { ...state, fieldMaps: new Map(state.fieldMaps).set(event.data.source, { mappings: event.data.mappings, setAt: event.data.setAt }) }
      case 'SourceFieldMapRemoved': {
        const fieldMaps = new Map(state.fieldMaps)
        fieldMaps.delete(event.data.source)
        return { ...state, fieldMaps }
      }
      case 'EventsSubscribed': {
        const { subscriptionId, url, types, sealedSecret, secretHint, subscribedAt } = event.data
        return { ...state, subscriptions: new Map(state.subscriptions).set(subscriptionId, { subscriptionId, url, types, sealedSecret, secretHint, subscribedAt }) }
      }
      case 'EventsSecretRotated': {
        const subscription = state.subscriptions.get(event.data.subscriptionId)
        if (!subscription) return state
        return { ...state, subscriptions: new Map(state.subscriptions).set(subscription.subscriptionId, { ...subscription, sealedSecret: event.data.sealedSecret, secretHint: event.data.secretHint }) }
      }
      case 'EventsUnsubscribed': {
        const subscriptions = new Map(state.subscriptions)
        subscriptions.delete(event.data.subscriptionId)
        return { ...state, subscriptions }
      }
      case 'CalendarConnected': {
        const { provider, label, sealedCredentials, calendars, connectedAt } = event.data
        return { ...state, calendar: { provider, label, sealedCredentials, calendars, connectedAt } }
      }
      case 'CalendarDisconnected':
        return { ...state, calendar: null }
      case 'AppointmentTypeSaved':
        return { ...state, appointmentTypes: new Map(state.appointmentTypes).set(event.data.type.id, event.data.type) }
      case 'AppointmentTypeRemoved': {
        const appointmentTypes = new Map(state.appointmentTypes)
        appointmentTypes.delete(event.data.typeId)
        return { ...state, appointmentTypes }
      }
    }
  },

  decide(command, state, now) {
    const at = now.toISOString()
    switch (command.type) {
      case 'CreateAccount': {
        if (state.exists) throw new DomainError('account_exists', 'account already exists')
        const name = command.name.trim()
        if (name === '' || name.length > MAX_ACCOUNT_NAME) {
          throw new DomainError('invalid_name', `account name must be 1–${MAX_ACCOUNT_NAME} characters`)
        }
        const settings = { ...DEFAULT_SETTINGS, ...validateSettingsChange(command.settings ?? {}) }
        const problem = bookingTypeProblem(state, settings.assistantBrief.appointmentTypeId)
        if (problem !== null) throw new DomainError('invalid_setting', `invalid assistantBrief.appointmentTypeId: ${problem}`, { field: 'assistantBrief.appointmentTypeId' })
        return [
          { type: 'AccountCreated', data: { accountId: command.accountId, name, settings, createdAt: at } },
          {
            type: 'WebhookTokenIssued',
            data: {
              tokenId: command.webhookToken.id,
              tokenHash: command.webhookToken.hash,
              hint: command.webhookToken.hint,
              issuedAt: at,
            },
          },
        ]
      }
      case 'ChangeSettings': {
        requireAccount(state)
        const changes = validateSettingsChange(command.changes)
        // A brief that newly names an appointment type names one the account has (a type removed later turns booking off: assistant-booking.ts).
        const typeId = changes.assistantBrief?.appointmentTypeId ?? null
        const problem = typeId === (state.settings.assistantBrief.appointmentTypeId ?? null) ? null : bookingTypeProblem(state, typeId)
        if (problem !== null) throw new DomainError('invalid_setting', `invalid assistantBrief.appointmentTypeId: ${problem}`, { field: 'assistantBrief.appointmentTypeId' })
        const effective = Object.fromEntries(
          // JSON, so a list of countries set to the same list again is no change.
          Object.entries(changes).filter(([k, v]) => JSON.stringify(state.settings[k as keyof AccountSettings]) !== JSON.stringify(v)),
        )
        if (Object.keys(effective).length === 0) return []
        return [{ type: 'AccountSettingsChanged', data: { changes: effective } }]
      }
      case 'RotateWebhookToken': {
        requireAccount(state)
        const issued: AccountEvent = {
          type: 'WebhookTokenIssued',
          data: { tokenId: command.newToken.id, tokenHash: command.newToken.hash, hint: command.newToken.hint, issuedAt: at },
        }
        if (!state.webhookToken) return [issued]
        return [
          { type: 'WebhookTokenRevoked', data: { tokenId: state.webhookToken.tokenId, reason: 'rotated', revokedAt: at } },
          issued,
        ]
      }
      case 'CreateApiKey': {
        requireAccount(state)
        const scopes = validateScopes(command.scopes)
        const label = command.label?.trim() || null
        if (label !== null && label.length > MAX_KEY_LABEL) {
          throw new DomainError('invalid_label', `key label must be at most ${MAX_KEY_LABEL} characters`)
        }
        return [
          {
            type: 'ApiKeyCreated',
            data: { keyId: command.key.id, keyHash: command.key.hash, hint: command.key.hint, scopes, label, createdAt: at },
          },
        ]
      }
      case 'RevokeApiKey': {
        requireAccount(state)
        const key = state.apiKeys.get(command.keyId)
        if (!key) throw new DomainError('key_not_found', `no key ${command.keyId} in this account`)
        if (key.revokedAt !== null) return []
        return [{ type: 'ApiKeyRevoked', data: { keyId: key.keyId, revokedAt: at } }]
      }
      case 'CreateOAuthGrant': {
        requireAccount(state)
        if (state.oauthGrants.has(command.grantId)) return []
        const { grantId, clientId, userId } = command
        const clientName = command.clientName.trim().slice(0, MAX_KEY_LABEL) || clientId
        return [{ type: 'OAuthGrantCreated', data: { grantId, clientId, clientName, userId, scopes: validateScopes(command.scopes), createdAt: at } }]
      }
      case 'RevokeOAuthGrant': {
        requireAccount(state)
        const grant = state.oauthGrants.get(command.grantId)
        if (!grant) throw new DomainError('grant_not_found', `no OAuth grant ${command.grantId} in this account`)
        if (grant.revokedAt !== null) return []
        return [{ type: 'OAuthGrantRevoked', data: { grantId: grant.grantId, reason: command.reason, revokedAt: at } }]
      }
      case 'SetGoogleKey':
        requireAccount(state)
        return [{ type: 'GoogleKeySet', data: { keyHash: command.keyHash, salt: command.salt, setAt: at } }]
      case 'ClearGoogleKey':
        requireAccount(state)
        return state.googleKey === null ? [] : [{ type: 'GoogleKeyCleared', data: { clearedAt: at } }]
      case 'SetFieldMap': {
        requireAccount(state)
        const source = sourceName(command.source)
        const mappings = validateFieldMap(command.mappings)
        const current = state.fieldMaps.get(source)
        if (current !== undefined && JSON.stringify(current.mappings) === JSON.stringify(mappings)) return []
        if (current === undefined && state.fieldMaps.size >= MAX_FIELD_MAP_SOURCES) {
          throw new DomainError('invalid_field_map', `at most ${MAX_FIELD_MAP_SOURCES} sources with a field map per account`)
        }
        return [{ type: 'SourceFieldMapSet', data: { source, mappings: [...mappings], setAt: at } }]
      }
      case 'RemoveFieldMap': {
        requireAccount(state)
        const source = sourceName(command.source)
        return state.fieldMaps.has(source) ? [{ type: 'SourceFieldMapRemoved', data: { source, removedAt: at } }] : []
      }
      case 'SubscribeEvents': {
        requireAccount(state)
        if (state.subscriptions.size >= MAX_EVENT_SUBSCRIPTIONS) {
          throw new DomainError('too_many_subscriptions', `at most ${MAX_EVENT_SUBSCRIPTIONS} events subscriptions per account: remove one first`)
        }
        if (!isSealed(command.sealedSecret)) throw new DomainError('secret_not_sealed', 'a signing secret is kept sealed, never in the clear')
        const { subscriptionId, sealedSecret, secretHint } = command
        return [{ type: 'EventsSubscribed', data: { subscriptionId, url: subscriberUrl(command.url), types: parseOutboundTypes(command.types), sealedSecret, secretHint, subscribedAt: at } }]
      }
      case 'RotateEventsSecret': {
        requireAccount(state)
        requireSubscription(state, command.subscriptionId)
        if (!isSealed(command.sealedSecret)) throw new DomainError('secret_not_sealed', 'a signing secret is kept sealed, never in the clear')
        return [{ type: 'EventsSecretRotated', data: { subscriptionId: command.subscriptionId, sealedSecret: command.sealedSecret, secretHint: command.secretHint, rotatedAt: at } }]
      }
      case 'UnsubscribeEvents': {
        requireAccount(state)
        requireSubscription(state, command.subscriptionId)
        return [{ type: 'EventsUnsubscribed', data: { subscriptionId: command.subscriptionId, unsubscribedAt: at } }]
      }
      case 'ConnectCalendar': {
        requireAccount(state)
        if (!isSealed(command.sealedCredentials)) throw new DomainError('secret_not_sealed', "a calendar's credentials are kept sealed, never in the clear")
        const { provider, sealedCredentials } = command
        const label = command.label.trim().slice(0, MAX_CALENDAR_LABEL) || provider
        const calendars = command.calendars.map((c) => ({ id: c.id, name: c.name, timeZone: c.timeZone }))
        return [{ type: 'CalendarConnected', data: { provider, label, sealedCredentials, calendars, connectedAt: at } }]
      }
      case 'DisconnectCalendar':
        requireAccount(state)
        return state.calendar === null ? [] : [{ type: 'CalendarDisconnected', data: { disconnectedAt: at } }]
      case 'SaveAppointmentType': {
        requireAccount(state)
        const type = appointmentType(command.input)
        if (state.calendar === null) throw new DomainError('calendar_not_connected', 'connect a calendar first (leadline calendar connect, or Setup → Calendar): an appointment type names the calendar it goes to')
        const ids = state.calendar.calendars.map((c) => c.id)
        if (!ids.includes(type.calendarId)) {
          throw new DomainError('unknown_calendar', `calendarId must be one of the connected calendar's: ${ids.join(', ') || '(it has none)'}`, { calendarId: type.calendarId, calendars: ids })
        }
        const current = state.appointmentTypes.get(type.id)
        if (current !== undefined && sameType(current, type)) return []
        if (current === undefined && state.appointmentTypes.size >= MAX_APPOINTMENT_TYPES) {
          throw new DomainError('too_many_appointment_types', `at most ${MAX_APPOINTMENT_TYPES} appointment types per account: remove one first`)
        }
        return [{ type: 'AppointmentTypeSaved', data: { type, savedAt: at } }]
      }
      case 'RemoveAppointmentType':
        requireAccount(state)
        if (!state.appointmentTypes.has(command.typeId)) throw new DomainError('appointment_type_not_found', `no appointment type ${command.typeId} in this account`, { typeId: command.typeId })
        return [{ type: 'AppointmentTypeRemoved', data: { typeId: command.typeId, removedAt: at } }]
    }
  },
}
