/**
 * The consent step of an OAuth sign-in (issue #30): the authorization server sends the owner here,
 * the console's session signs them in (or sends them to sign in first), and this page shows which
 * client asks for which scopes. The owner may grant fewer; the grant binds the client to the signed-in
 * owner's account, one account per grant, and is recorded on the account's stream before the client
 * gets a code. Only a signed-in person can make a grant: no token or key reaches these routes.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { SCOPES, type Scope } from '../../domain/account/account.events.ts'
import type { OAuthServer } from '../oauth/oauth-server.ts'
import { ourScopes } from '../oauth/oauth-scopes.ts'
import { html } from './html.ts'
import { CONSOLE_PREFIX, csrfField } from './layout.ts'
import { CONSOLE_CSP, frameOf, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { SCOPE_TEXT } from './ai-access.route.ts'
import { consoleForm, consoleItem } from './console.schema.ts'

export const CONSENT_ROUTE = '/oauth/consent'

interface Asked {
  readonly uid: string
  /** The sign-in under way, as the library keeps it. */
  readonly interaction: Awaited<ReturnType<OAuthServer['provider']['interactionDetails']>>
  /** The client named no scope of ours: the owner's choice becomes the request's. */
  readonly scopeless: boolean
  readonly clientId: string
  readonly clientName: string
  readonly redirectUri: string
  readonly resource: string
  /** Our scopes the client asked for; all three when it named none of them. */
  readonly scopes: readonly Scope[]
  /** OpenID scopes asked for beside ours (`offline_access`), granted as asked. */
  readonly oidcScopes: readonly string[]
}

async function asked(oauth: OAuthServer, request: FastifyRequest, reply: FastifyReply): Promise<Asked | null> {
  let details
  try {
    details = await oauth.provider.interactionDetails(request.raw, reply.raw)
  } catch {
    return null // expired, or this browser did not start it
  }
  const params = details.params as Record<string, string | undefined>
  const clientId = params.client_id ?? ''
  const client = await oauth.provider.Client.find(clientId)
  if (!client) return null
  const scope = params.scope
  const ours = ourScopes(scope)
  return {
    uid: details.uid,
    interaction: details,
    scopeless: ours.length === 0,
    clientId,
    clientName: typeof client.clientName === 'string' && client.clientName !== '' ? client.clientName : clientId,
    redirectUri: params.redirect_uri ?? '',
    resource: typeof params.resource === 'string' ? params.resource : oauth.resource,
    scopes: ours.length > 0 ? ours : [...SCOPES],
    oidcScopes: (scope ?? '').split(' ').filter((s) => s === 'openid' || s === 'offline_access'),
  }
}

/** The consent form posts, then the browser is redirected to the client: the page allows that one destination. */
function formActionFor(redirectUri: string): string {
  try {
    const url = new URL(redirectUri)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : url.protocol
  } catch {
    return ''
  }
}

export const oauthConsentRoutes: FastifyPluginAsync = async (fastify) => {
  const oauth = fastify.oauth
  if (!oauth) return

  const expired = (request: FastifyRequest, reply: FastifyReply) => {
    const frame = frameOf(request, reply, 'ai-access')
    const body = html`<div class="narrow"><h1>This sign-in has expired</h1><p>Nothing was granted. Start again from the app that sent you here.</p></div>`
    return sendFailedPage(reply, { title: 'Sign-in expired', frame, body }, 400, { error: 'invalid_request', detail: 'no OAuth sign-in under way here: it expired or was finished' })
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Params: { uid: string } }>(`${CONSENT_ROUTE}/:uid`, { schema: consoleItem('uid') }, async (request, reply) => {
      const ask = await asked(oauth, request, reply)
      if (!ask || ask.uid !== request.params.uid) return expired(request, reply)
      const frame = frameOf(request, reply, 'ai-access')
      const { account } = signedIn(request)
      const body = html`<div class="narrow"><h1>Allow ${ask.clientName}?</h1>
<p><strong>${ask.clientName}</strong> asks to use <strong>${account.name}</strong>'s tools through Leadline. It will act with the scopes you allow here, until you revoke it under <a href="${CONSOLE_PREFIX}/setup/ai-access">Setup → AI access</a>.</p>
<p class="muted">After you answer you return to <code>${ask.redirectUri}</code>.</p>
<form method="post" action="${CONSOLE_PREFIX}${CONSENT_ROUTE}/${ask.uid}" class="panel">
${csrfField(frame.csrfToken)}
<fieldset><legend>Scopes</legend>
${ask.scopes.map((scope) => html`<label class="check"><input type="checkbox" name="scopes" value="${scope}" checked> <span><strong>${scope}</strong>: ${SCOPE_TEXT[scope]}</span></label>`)}
</fieldset>
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form></div>`
      const destination = formActionFor(ask.redirectUri)
      reply.header('content-security-policy', destination === '' ? CONSOLE_CSP : CONSOLE_CSP.replace("form-action 'self'", `form-action 'self' ${oauth.issuer} ${destination}`))
      return sendPage(reply, { title: `Allow ${ask.clientName}`, frame, body, notice: null })
    })

    routes.post<{ Params: { uid: string } }>(`${CONSENT_ROUTE}/:uid`, { schema: consoleForm('uid'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const ask = await asked(oauth, request, reply)
      if (!ask || ask.uid !== request.params.uid) return expired(request, reply)
      const form = (request.body ?? {}) as Record<string, unknown>
      const chosen = new Set(Array.isArray(form.scopes) ? form.scopes : [form.scopes])
      const granted = ask.scopes.filter((s) => chosen.has(s))
      if (form.decision !== 'allow' || granted.length === 0) {
        const returnTo = await oauth.provider.interactionResult(request.raw, reply.raw, {
          error: 'access_denied',
          error_description: granted.length === 0 && form.decision === 'allow' ? 'the owner granted no scope' : 'the owner denied the request',
        }, { mergeWithLastSubmission: false })
        return reply.redirect(returnTo, 303)
      }
      const { account, principal } = signedIn(request)
      const grant = new oauth.provider.Grant({ accountId: account.accountId, clientId: ask.clientId })
      grant.addResourceScope(ask.resource, granted.join(' '))
      const refused = ask.scopes.filter((s) => !granted.includes(s))
      if (refused.length > 0) grant.rejectResourceScope(ask.resource, refused.join(' '))
      // The library lists our scopes among its own as well (a client registers with them): the same answer there.
      grant.addOIDCScope([...ask.oidcScopes, ...granted].join(' '))
      if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '))
      const grantId = await grant.save()
      if (ask.scopeless) {
        // The library issues only scopes that were asked for: a client that named none asked for what the owner allowed.
        ask.interaction.params.scope = [...ask.oidcScopes, ...granted].join(' ')
        await ask.interaction.save(ask.interaction.exp - Math.floor(Date.now() / 1000))
      }
      // Recorded on the account when the client's code is issued: a flow that ends in an error leaves no grant.
      await oauth.consented({
        grantId, accountId: account.accountId, clientId: ask.clientId, clientName: ask.clientName, userId: principal.user.userId, scopes: granted, correlationId: request.id,
      })
      const returnTo = await oauth.provider.interactionResult(request.raw, reply.raw, {
        login: { accountId: account.accountId },
        consent: { grantId },
      })
      return reply.redirect(returnTo, 303)
    })
  })
}
