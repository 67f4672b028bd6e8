/** `leadline key create|list|revoke`: API keys. The CLI stands in for the owner's signed-in session (spec §5 rule 4). */
import { json, operator, parse, required, table, UsageError, withLeadline, type Io } from '../cli-io.ts'

export async function keyCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, { account: { type: 'string' }, scopes: { type: 'string' }, label: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const scopes = required(values.scopes, '--scopes').split(',')
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        const { key, scopes: granted } = await leadline.accounts.createApiKey(accountId, scopes, values.label ?? null, operator())
        if (values.json) return io.out(json({ keyId: key.id, key: key.secret, accountId, scopes: granted, label: values.label ?? null }))
        io.out(
          [
            `key ${key.id} created for account ${accountId} with scopes ${granted.join(', ')}`,
            `API key (shown once, store it now): ${key.secret}`,
            'scopes cannot be changed later: create a new key for other scopes',
          ].join('\n'),
        )
      })
      return
    }
    case 'list': {
      const { values } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      await withLeadline(io, async (leadline) => {
        const account = await leadline.accounts.require(accountId)
        // When each key last called the tool endpoint (to the minute), as the console shows it: which keys a rotation can drop.
        const lastUsed = leadline.apiKeyUsage.lastUsed(accountId)
        const keys = [...account.apiKeys.values()].map((k) => ({
          keyId: k.keyId, hint: k.hint, scopes: k.scopes, label: k.label, createdAt: k.createdAt, lastUsedAt: lastUsed.get(k.keyId) ?? null, revokedAt: k.revokedAt,
        }))
        if (values.json) return io.out(json(keys))
        io.out(
          keys.length === 0
            ? `no keys: leadline key create --account ${accountId} --scopes read`
            : table(['key', 'starts with', 'scopes', 'label', 'created', 'last used', 'status'], keys.map((k) => [
                k.keyId, k.hint, k.scopes.join(','), k.label ?? '', k.createdAt, k.lastUsedAt ?? 'never', k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
              ])),
        )
      })
      return
    }
    case 'revoke': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' } }, true)
      const keyId = required(positionals[0], 'KEY_ID')
      await withLeadline(io, async (leadline) => {
        const { accountId } = await leadline.accounts.revokeApiKey(keyId, operator())
        if (values.json) return io.out(json({ keyId, accountId, revoked: true }))
        io.out(`key ${keyId} revoked: it fails from the next request on`)
      })
      return
    }
    default:
      throw new UsageError(`unknown command "key ${sub ?? ''}": use create, list or revoke`)
  }
}
