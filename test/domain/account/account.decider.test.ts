import t from 'tap'
import { accountDecider, type AccountCommand } from '../../../src/domain/account/account.decider.ts'
import type { AccountEvent } from '../../../src/domain/account/account.events.ts'
import { DEFAULT_SETTINGS } from '../../../src/domain/account/account-settings.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const spec = deciderSpec<AccountCommand, AccountEvent, ReturnType<typeof accountDecider.initialState>>(accountDecider, NOW)
const token = { id: 'wht_1', hash: 'a'.repeat(64), hint: 'llwh_abcd…' }
const created: AccountEvent[] = [
  { type: 'AccountCreated', data: { accountId: 'acc_1', name: 'Acme', settings: DEFAULT_SETTINGS, createdAt: NOW.toISOString() } },
  { type: 'WebhookTokenIssued', data: { tokenId: 'wht_1', tokenHash: token.hash, hint: token.hint, issuedAt: NOW.toISOString() } },
]

t.test('create: an account with default settings and its first webhook token', async (t) => {
  spec([]).when({ type: 'CreateAccount', accountId: 'acc_1', name: '  Acme ', settings: {}, webhookToken: token }).then(t, created)
})

t.test('create: settings are validated and normalised', async (t) => {
  spec([])
    .when({ type: 'CreateAccount', accountId: 'acc_1', name: 'Acme', settings: { timeZone: 'Europe/Berlin', callingHours: 'MON-FRI 9:00-17:00' }, webhookToken: token })
    .then(t, (events) => {
      const first = events[0] as Extract<AccountEvent, { type: 'AccountCreated' }>
      t.equal(first.data.settings.timeZone, 'Europe/Berlin')
      t.equal(first.data.settings.callingHours, 'mon-fri 09:00-17:00')
      t.equal(first.data.settings.speedToLead, false)
    })
})

t.test('create: refused for a bad name, a bad zone, an existing account', async (t) => {
  spec([]).when({ type: 'CreateAccount', accountId: 'a', name: ' ', settings: {}, webhookToken: token }).thenThrows(t, 'invalid_name')
  spec([]).when({ type: 'CreateAccount', accountId: 'a', name: 'x'.repeat(201), settings: {}, webhookToken: token }).thenThrows(t, 'invalid_name')
  spec([]).when({ type: 'CreateAccount', accountId: 'a', name: 'A', settings: { timeZone: 'Mars/Olympus' }, webhookToken: token }).thenThrows(t, 'invalid_setting')
  spec(created).when({ type: 'CreateAccount', accountId: 'acc_1', name: 'A', settings: {}, webhookToken: token }).thenThrows(t, 'account_exists')
})

t.test('settings: only real changes become an event; each setting is validated', async (t) => {
  spec(created).when({ type: 'ChangeSettings', changes: { speedToLead: true, timeZone: DEFAULT_SETTINGS.timeZone } }).then(t, [
    { type: 'AccountSettingsChanged', data: { changes: { speedToLead: true } } },
  ])
  spec(created).when({ type: 'ChangeSettings', changes: { speedToLead: false } }).then(t, [])
  spec(created).when({ type: 'ChangeSettings', changes: { callerId: '+15551234567', defaultCountry: 'gb', industry: 'solar' } }).then(t, [
    { type: 'AccountSettingsChanged', data: { changes: { callerId: '+15551234567', defaultCountry: 'GB', industry: 'solar' } } },
  ])
  for (const bad of [{ callerId: '555-1234' }, { defaultCountry: 'XX' }, { industry: 'bakery' }, { callingHours: 'mon 25:00-26:00' }, { unknown: 1 }]) {
    spec(created).when({ type: 'ChangeSettings', changes: bad }).thenThrows(t, bad.callingHours ? 'invalid_calling_hours' : 'invalid_setting')
  }
  spec([]).when({ type: 'ChangeSettings', changes: { speedToLead: true } }).thenThrows(t, 'account_not_found')
})

t.test('settings: the countries calls may go to are read as ISO codes, once each; the same list again is no change', async (t) => {
  const set: AccountEvent[] = [...created, { type: 'AccountSettingsChanged', data: { changes: { allowedCountries: ['US', 'CA'] } } }]
  spec(created).when({ type: 'ChangeSettings', changes: { allowedCountries: 'us, CA,us', placeCallCountries: ['gb'] } }).then(t, [
    { type: 'AccountSettingsChanged', data: { changes: { allowedCountries: ['US', 'CA'], placeCallCountries: ['GB'] } } },
  ])
  spec(set).when({ type: 'ChangeSettings', changes: { allowedCountries: ['US', 'CA'] } }).then(t, [])
  spec(set).when({ type: 'ChangeSettings', changes: { allowedCountries: null } }).then(t, [{ type: 'AccountSettingsChanged', data: { changes: { allowedCountries: null } } }])
  for (const bad of [{ allowedCountries: 'US,XX' }, { allowedCountries: '' }, { placeCallCountries: [] }, { allowedCountries: 5 }]) {
    spec(created).when({ type: 'ChangeSettings', changes: bad }).thenThrows(t, 'invalid_setting')
  }
  t.same(DEFAULT_SETTINGS.allowedCountries, null, 'by default, the default country only')
})

t.test('rotate: the old token is revoked and the new one issued, in one decision', async (t) => {
  const next = { id: 'wht_2', hash: 'b'.repeat(64), hint: 'llwh_efgh…' }
  spec(created).when({ type: 'RotateWebhookToken', newToken: next }).then(t, (events, after) => {
    t.same(events.map((e) => e.type), ['WebhookTokenRevoked', 'WebhookTokenIssued'])
    t.equal(after.webhookToken?.tokenId, 'wht_2')
    t.equal(after.webhookToken?.tokenHash, next.hash)
  })
})

t.test('keys: scopes are validated, de-duplicated and ordered; revocation is idempotent', async (t) => {
  const key = { id: 'key_1', hash: 'c'.repeat(64), hint: 'll_live_abcd…' }
  spec(created).when({ type: 'CreateApiKey', key, scopes: ['dial', ' READ', 'dial'], label: ' bot ' }).then(t, (events, after) => {
    t.same(events, [{ type: 'ApiKeyCreated', data: { keyId: 'key_1', keyHash: key.hash, hint: key.hint, scopes: ['read', 'dial'], label: 'bot', createdAt: NOW.toISOString() } }])
    t.same(after.apiKeys.get('key_1')?.scopes, ['read', 'dial'])
  })
  spec(created).when({ type: 'CreateApiKey', key, scopes: ['admin'], label: null }).thenThrows(t, 'invalid_scopes')
  spec(created).when({ type: 'CreateApiKey', key, scopes: [''], label: null }).thenThrows(t, 'invalid_scopes')
  spec(created).when({ type: 'CreateApiKey', key, scopes: ['read'], label: 'x'.repeat(101) }).thenThrows(t, 'invalid_label')
  const withKey: AccountEvent[] = [...created, { type: 'ApiKeyCreated', data: { keyId: 'key_1', keyHash: key.hash, hint: key.hint, scopes: ['read'], label: null, createdAt: NOW.toISOString() } }]
  spec(withKey).when({ type: 'RevokeApiKey', keyId: 'key_1' }).then(t, [{ type: 'ApiKeyRevoked', data: { keyId: 'key_1', revokedAt: NOW.toISOString() } }])
  const revoked: AccountEvent[] = [...withKey, { type: 'ApiKeyRevoked', data: { keyId: 'key_1', revokedAt: NOW.toISOString() } }]
  spec(revoked).when({ type: 'RevokeApiKey', keyId: 'key_1' }).then(t, [])
  spec(revoked).when({ type: 'RevokeApiKey', keyId: 'key_9' }).thenThrows(t, 'key_not_found')
  t.not(spec(revoked).when({ type: 'RevokeApiKey', keyId: 'key_1' }).state.apiKeys.get('key_1')?.revokedAt, null)
})

t.test('keys are looked up by their own id only: constructor, toString, __proto__ name no key', async (t) => {
  const withKey: AccountEvent[] = [...created, { type: 'ApiKeyCreated', data: { keyId: 'key_1', keyHash: 'c'.repeat(64), hint: 'll_live_abcd…', scopes: ['read'], label: null, createdAt: NOW.toISOString() } }]
  for (const keyId of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    spec(withKey).when({ type: 'RevokeApiKey', keyId }).thenThrows(t, 'key_not_found')
  }
})
