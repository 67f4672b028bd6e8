/**
 * Setup → AI access (spec §2.2): API keys for agents and the CLI client. Creating one needs the
 * owner's signed-in session (spec §5 rule 4): these routes take no API key at all, so no key can
 * make another. The new key is shown once, on the page that answers the form, and never again.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { MAX_KEY_LABEL, type AccountState } from '../../domain/account/account.decider.ts'
import { SCOPES } from '../../domain/account/account.events.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { html, type Html } from './html.ts'
import { CONSOLE_PREFIX, copyButton, csrfField, timeElement } from './layout.ts'
import { actingUser, frameOf, refreshAccount, requireSession, sendFailedPage, sendPage, signedIn } from './session.ts'
import { consoleForm, consolePage } from './console.schema.ts'

const PATH = '/setup/ai-access'

export const SCOPE_TEXT: Readonly<Record<(typeof SCOPES)[number], string>> = {
  read: 'read the book: next actions, leads, lead history',
  write: 'change it: mark do-not-call, text a pay-link',
  dial: 'ring people: place a call from your number',
}

function keyList(account: AccountState, lastUsed: ReadonlyMap<string, string>, csrfToken: string): Html {
  const keys = [...account.apiKeys.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  if (keys.length === 0) return html`<p class="muted">No keys yet.</p>`
  const zone = account.settings.timeZone
  return html`<div class="table-wrap"><table>
<caption class="muted">Every key of ${account.name}, newest first</caption>
<thead><tr><th scope="col">Label</th><th scope="col">Starts with</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
<tbody>${keys.map((key) => html`<tr data-key-id="${key.keyId}">
<td>${key.label ?? html`<span class="muted">(no label)</span>`}</td>
<td><code>${key.hint}</code></td>
<td>${key.scopes.map((s) => html`<span class="badge">${s}</span>`)}</td>
<td>${timeElement(key.createdAt, zone)}</td>
<td>${lastUsed.has(key.keyId) ? timeElement(lastUsed.get(key.keyId), zone) : html`<span class="muted">never</span>`}</td>
<td>${key.revokedAt
    ? html`<span class="bad">revoked ${timeElement(key.revokedAt, zone)}</span>`
    : html`<form method="post" action="${CONSOLE_PREFIX}${PATH}/${key.keyId}/revoke" class="inline" data-confirm="Revoke this key? Whatever uses it stops working at once.">
${csrfField(csrfToken)}
<button type="submit" class="danger" aria-label="Revoke key ${key.label ?? key.hint}">Revoke</button></form>`}</td>
</tr>`)}</tbody></table></div>`
}

/** OAuth clients the owner allowed (issue #30), beside the keys: revoking one ends every token of it at once. */
function grantList(account: AccountState, lastUsed: ReadonlyMap<string, string>, csrfToken: string): Html {
  const grants = [...account.oauthGrants.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  if (grants.length === 0) return html`<p class="muted">No app signed in with OAuth yet.</p>`
  const zone = account.settings.timeZone
  return html`<div class="table-wrap"><table>
<caption class="muted">Apps allowed through OAuth sign-in, newest first</caption>
<thead><tr><th scope="col">Client</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
<tbody>${grants.map((grant) => html`<tr data-grant-id="${grant.grantId}">
<td>${grant.clientName} <span class="muted">(<code>${grant.clientId}</code>)</span></td>
<td>${grant.scopes.map((s) => html`<span class="badge">${s}</span>`)}</td>
<td>${timeElement(grant.createdAt, zone)}</td>
<td>${lastUsed.has(grant.grantId) ? timeElement(lastUsed.get(grant.grantId), zone) : html`<span class="muted">never</span>`}</td>
<td>${grant.revokedAt
    ? html`<span class="bad">revoked ${timeElement(grant.revokedAt, zone)}</span>`
    : html`<form method="post" action="${CONSOLE_PREFIX}${PATH}/grants/${grant.grantId}/revoke" class="inline" data-confirm="Revoke this app's access? Its tokens stop working at once.">
${csrfField(csrfToken)}
<button type="submit" class="danger" aria-label="Revoke ${grant.clientName}">Revoke</button></form>`}</td>
</tr>`)}</tbody></table></div>`
}

function createForm(csrfToken: string, error: string | null, values: { label: string; scopes: readonly string[] }): Html {
  return html`<form method="post" action="${CONSOLE_PREFIX}${PATH}" class="panel">
${csrfField(csrfToken)}
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<label for="label">Label <span class="hint">What will use it, e.g. "Sales agent". Optional.</span></label>
<input type="text" id="label" name="label" maxlength="${MAX_KEY_LABEL}" value="${values.label}">
<fieldset><legend>Scopes</legend>
<p class="hint">Fixed for the life of the key: for another scope, create another key.</p>
${SCOPES.map((scope) => html`<label class="check"><input type="checkbox" name="scopes" value="${scope}"${values.scopes.includes(scope) ? html` checked` : ''}> <span><strong>${scope}</strong>: ${SCOPE_TEXT[scope]}</span></label>`)}
</fieldset>
<div class="actions"><button type="submit">Create key</button></div>
</form>`
}

function newKeyBox(secret: string, scopes: readonly string[], publicUrl: string): Html {
  return html`<section class="secret-box" aria-labelledby="new-key-title">
<h2 id="new-key-title">Your new API key</h2>
<p><strong>Copy it now: it is shown only this once.</strong> Leadline keeps only its hash. Scopes: ${scopes.join(', ')}.</p>
<p><input type="text" id="new-key" value="${secret}" readonly aria-label="New API key" class="mono"></p>
${copyButton('new-key', 'Copy key')}
<p>Agents send it as <code>Authorization: Bearer …</code> to <code>${publicUrl}/api/mcp</code>.</p>
</section>`
}

function scopesOf(body: unknown): string[] {
  const value = (body as Record<string, unknown> | undefined)?.scopes
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value]
  return list.filter((s): s is string => typeof s === 'string')
}

export const aiAccessRoutes: FastifyPluginAsync = async (fastify) => {
  const leadline = fastify.leadline

  const show = (request: FastifyRequest, reply: FastifyReply, extra: { created?: Html; notice?: string | null; error?: string | null; values?: { label: string; scopes: readonly string[] } }) => {
    const frame = frameOf(request, reply, 'ai-access')
    const { account } = signedIn(request)
    const lastUsed = leadline.apiKeyUsage.lastUsed(account.accountId)
    const body = html`<h1>Setup → AI access</h1>
<p>API keys let AI agents and the <code>leadline</code> command-line client use this account's tool endpoint. Each key belongs to ${account.name} only.</p>
${extra.created ?? ''}
<h2>Create a key</h2>
${createForm(frame.csrfToken, extra.error ?? null, extra.values ?? { label: '', scopes: ['read'] })}
<h2>Keys</h2>
${keyList(account, lastUsed, frame.csrfToken)}
<h2>Apps signed in with OAuth</h2>
${grantList(account, lastUsed, frame.csrfToken)}`
    const page = { title: 'AI access', frame, body, notice: extra.notice ?? null }
    // 201 with the key just created; 400 (nothing created) when the form comes back with an error.
    if (extra.error) return sendFailedPage(reply, page, 400, { error: 'invalid_request', detail: extra.error })
    return sendPage(reply, page, extra.created ? 201 : 200)
  }

  fastify.register(async (routes) => {
    routes.addHook('onRequest', requireSession(fastify))

    routes.get<{ Querystring: { revoked?: string } }>(PATH, { schema: consolePage('revoked') }, async (request, reply) =>
      show(request, reply, { notice: request.query.revoked !== undefined ? 'The key is revoked: it fails from the next request on.' : null }))

    routes.post(PATH, { schema: consoleForm(), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const { account } = signedIn(request)
      const label = String((request.body as Record<string, unknown> | undefined)?.label ?? '').trim()
      const scopes = scopesOf(request.body)
      try {
        const { key, scopes: granted } = await leadline.accounts.createApiKey(account.accountId, scopes, label === '' ? null : label, actingUser(request))
        await refreshAccount(request, leadline.accounts)
        return show(request, reply, { created: newKeyBox(key.secret, granted, fastify.publicUrl) })
      } catch (error) {
        if (error instanceof DomainError && (error.code === 'invalid_scopes' || error.code === 'invalid_label')) {
          return show(request, reply, { error: error.code === 'invalid_scopes' ? 'Choose at least one scope.' : `${error.message}.`, values: { label, scopes } })
        }
        throw error
      }
    })

    routes.post<{ Params: { keyId: string } }>(`${PATH}/:keyId/revoke`, { schema: consoleForm('keyId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      await leadline.accounts.revokeAccountApiKey(signedIn(request).account.accountId, request.params.keyId, actingUser(request))
      return reply.redirect(`${CONSOLE_PREFIX}${PATH}?revoked`, 303)
    })

    routes.post<{ Params: { grantId: string } }>(`${PATH}/grants/:grantId/revoke`, { schema: consoleForm('grantId'), preHandler: fastify.csrfProtection }, async (request, reply) => {
      const accountId = signedIn(request).account.accountId
      await leadline.accounts.revokeOAuthGrant(accountId, request.params.grantId, 'owner', actingUser(request))
      // The grant's event already stops its access tokens; revoking its records stops its refresh tokens and codes too.
      await fastify.oauth?.revokeGrantRecords(request.params.grantId)
      return reply.redirect(`${CONSOLE_PREFIX}${PATH}?revoked`, 303)
    })
  })
}
