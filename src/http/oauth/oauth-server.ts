/**
 * Leadline as the OAuth 2.1 authorization server of its own tool endpoint (issue #30), built on
 * oidc-provider (an OpenID-certified library): authorization code with PKCE S256 only, dynamic client
 * registration (RFC 7591), resource indicators (RFC 8707) binding every token to `{public}/api/mcp`,
 * opaque short-lived access tokens, refresh tokens rotated on every use (a reused one revokes its
 * grant), revocation (RFC 7009). Nothing about tokens is written here: the library issues and checks
 * them; this file configures it and connects it to the account's grants and its records on the log.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import Provider, { errors, type Adapter, type AdapterPayload, type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import { SCOPES, type Scope } from '../../domain/account/account.events.ts'
import type { OAuthRecords } from '../../commands/oauth-records.ts'
import type { SecretBox } from '../../integrations/secrets/secret-box.ts'
import { ourScopes } from './oauth-scopes.ts'

/** Where the console's consent page answers an authorization request (the interaction's uid follows). */
export const CONSENT_PATH = '/app/oauth/consent'
/** The authorization server's own endpoints, under the public URL. */
export const OAUTH_PREFIX = '/oauth'
/** RFC 9728's well-known name; the tool endpoint's own is this followed by its path. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource'

export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60
const CODE_TTL_SECONDS = 60
const INTERACTION_TTL_SECONDS = 10 * 60

/** The record model of a consent not yet turned into a code. */
const CONSENTED_GRANT = 'ConsentedGrant'

/** Sealed in its record: a confidential client's secret must be compared again, so a hash will not do. */
const CLIENT_SECRET_PURPOSE = 'oauth-client-secret'

/** What the owner allowed on the consent page, kept until the client's code is issued. */
export interface ConsentedGrant {
  readonly grantId: string
  readonly accountId: string
  readonly clientId: string
  readonly clientName: string
  readonly userId: string
  readonly scopes: readonly Scope[]
  readonly correlationId: string
}

export interface OAuthGrantStore {
  /** Records a grant on the account: only when its code is issued, so a flow that ends in an error leaves none. */
  created(grant: ConsentedGrant): Promise<void>
  /** The account of a grant, as its events say; null when revoked or unknown. */
  liveGrant(accountId: string, grantId: string): Promise<{ scopes: readonly Scope[] } | null>
  /** The library revoked a grant (a refresh token used twice, or revoked by its client). */
  revoked(accountId: string, grantId: string, reason: 'client' | 'refresh_token_reused'): Promise<void>
}

export interface OAuthServerOptions {
  /** LEADLINE_PUBLIC_URL, https: the issuer. */
  readonly publicUrl: string
  /** `{public}/api/mcp`: the one resource tokens are for. */
  readonly resource: string
  readonly records: OAuthRecords
  readonly secretBox: SecretBox
  readonly grants: OAuthGrantStore
}

function recordsAdapter(records: OAuthRecords, secretBox: SecretBox, grants: OAuthGrantStore) {
  return class RecordsAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      // On the log first: a code is never given out for a grant the account does not know.
      if (this.model === 'AuthorizationCode' && typeof payload.grantId === 'string') {
        const consented = await records.find(CONSENTED_GRANT, payload.grantId) as ConsentedGrant | undefined
        if (consented !== undefined) await grants.created({ ...consented, grantId: payload.grantId })
      }
      const kept = this.model === 'Client' && typeof payload.client_secret === 'string'
        ? { ...payload, client_secret: secretBox.seal(payload.client_secret, CLIENT_SECRET_PURPOSE) }
        : payload
      // Clients registered dynamically have no end; they are kept as long as a refresh token could be.
      await records.upsert(this.model, id, kept as Record<string, unknown>, expiresIn || REFRESH_TOKEN_TTL_SECONDS * 12)
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const found = await records.find(this.model, id) as AdapterPayload | undefined
      if (found && this.model === 'Client' && typeof found.client_secret === 'string') {
        return { ...found, client_secret: secretBox.open(found.client_secret, CLIENT_SECRET_PURPOSE) }
      }
      return found
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined // no device flow
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return await records.findByUid(this.model, uid) as AdapterPayload | undefined
    }

    async consume(id: string): Promise<void> {
      // Two requests with one code or refresh token at once (on one node or two): one wins, the other is refused.
      if (!(await records.consume(this.model, id))) throw new errors.InvalidGrant('grant request is invalid: already used')
    }

    async destroy(id: string): Promise<void> {
      await records.destroy(this.model, id)
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await records.revokeByGrantId(grantId)
    }
  }
}


export class OAuthServer {
  readonly provider: Provider
  readonly issuer: string
  readonly resource: string

  constructor(private readonly options: OAuthServerOptions) {
    this.issuer = options.publicUrl.replace(/\/+$/, '')
    this.resource = options.resource
    // Signs nothing a client keeps (access tokens are opaque, no ID tokens are asked for); a key per
    // process only keeps the library from its development keys.
    const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })
    const configuration: Configuration = {
      adapter: recordsAdapter(options.records, options.secretBox, options.grants),
      clients: [],
      jwks: { keys: [{ ...signing, kid: randomBytes(8).toString('hex'), use: 'sig', alg: 'ES256' } as never] },
      // Its cookies live only while a sign-in goes on. Signed with a key derived from the secret key, so
      // a sign-in may move between nodes (and across a restart) that hold the same LEADLINE_SECRET_KEY.
      cookies: { keys: [options.secretBox.derive('oauth-cookies').toString('base64url')] },
      findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
      // Ours too, so a client may register with them (RFC 7591 `scope`); tokens carry them as the resource's.
      scopes: ['openid', 'offline_access', ...SCOPES],
      responseTypes: ['code'],
      pkce: { required: () => true },
      clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        revocation: { enabled: true },
        userinfo: { enabled: false },
        // Advertised only what a client can use here: the tool endpoint takes bearer tokens, not DPoP
        // proofs, and there are no sessions to log out of.
        dPoP: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        pushedAuthorizationRequests: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => this.resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, indicator) => {
            if (indicator !== this.resource) throw new errors.InvalidTarget(`the only resource here is ${this.resource}`)
            return { scope: SCOPES.join(' '), audience: this.resource, accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS, accessTokenFormat: 'opaque' }
          },
        },
      },
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: () => true,
      expiresWithSession: async () => false,
      ttl: {
        AccessToken: ACCESS_TOKEN_TTL_SECONDS,
        AuthorizationCode: CODE_TTL_SECONDS,
        RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
        Interaction: INTERACTION_TTL_SECONDS,
        Session: INTERACTION_TTL_SECONDS,
        Grant: REFRESH_TOKEN_TTL_SECONDS * 12,
      },
      routes: {
        authorization: `${OAUTH_PREFIX}/authorize`,
        token: `${OAUTH_PREFIX}/token`,
        registration: `${OAUTH_PREFIX}/register`,
        revocation: `${OAUTH_PREFIX}/revoke`,
        jwks: `${OAUTH_PREFIX}/jwks`,
        pushed_authorization_request: `${OAUTH_PREFIX}/par`,
        introspection: `${OAUTH_PREFIX}/introspect`,
        userinfo: `${OAUTH_PREFIX}/me`,
      },
      interactions: { url: (_ctx, interaction) => `${CONSENT_PATH}/${interaction.uid}` },
      renderError: async (ctx, out) => {
        ctx.type = 'json'
        ctx.body = out
      },
    }
    this.provider = new Provider(this.issuer, configuration)
    // TLS ends in front of Leadline (the public URL is https); the library reads the scheme from here.
    this.provider.proxy = true
    this.provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
      const token = ctx.oidc.entities.RefreshToken ?? ctx.oidc.entities.AccessToken
      const accountId = token?.accountId
      if (accountId === undefined) return
      const reason = ctx.oidc.route === 'token' ? 'refresh_token_reused' : 'client'
      void options.grants.revoked(accountId, grantId, reason).catch(() => undefined)
    })
  }

  /** Keeps what the owner allowed until the client's code is issued (then it is recorded on the account). */
  async consented(grant: ConsentedGrant): Promise<void> {
    await this.options.records.upsert(CONSENTED_GRANT, grant.grantId, { ...grant }, INTERACTION_TTL_SECONDS)
  }

  /** Drops every code and token of a grant the owner revoked. */
  async revokeGrantRecords(grantId: string): Promise<void> {
    await this.options.records.revokeByGrantId(grantId)
  }

  /** What a 401 from the tool endpoint points clients to (RFC 9728 §5.1). */
  get resourceMetadataUrl(): string {
    return `${this.issuer}${PROTECTED_RESOURCE_METADATA_PATH}${new URL(this.resource).pathname}`
  }

  /** The node handler of every `/oauth/*` and discovery request. */
  get callback(): ReturnType<Provider['callback']> {
    return this.provider.callback()
  }

  /**
   * The principal of an access token for the tool endpoint: issued here, for this resource, not
   * expired, and its grant still live on the account (revoked in the console: refused at once).
   * Its scopes are those the owner granted; `keyId` is the grant's id.
   */
  async authenticate(token: string): Promise<{ accountId: string; grantId: string; scopes: Scope[] } | null> {
    if (token.length > 200) return null
    const found = await this.provider.AccessToken.find(token)
    if (!found || found.isExpired || found.accountId === undefined || found.grantId === undefined) return null
    const audience = Array.isArray(found.aud) ? found.aud : [found.aud]
    if (!audience.includes(this.resource)) return null
    const grant = await this.options.grants.liveGrant(found.accountId, found.grantId)
    if (!grant) return null
    const tokenScopes = ourScopes(found.scope)
    return { accountId: found.accountId, grantId: found.grantId, scopes: tokenScopes.filter((s) => grant.scopes.includes(s)) }
  }
}
