/** `leadline token rotate`: a new webhook token; the old one fails at once. */
import { json, operator, parse, required, UsageError, withLeadline, type Io } from '../cli-io.ts'

export async function tokenCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  if (sub !== 'rotate') throw new UsageError(`unknown command "token ${sub ?? ''}": use rotate`)
  const { values } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } })
  const accountId = required(values.account, '--account')
  await withLeadline(io, async (leadline, cfg) => {
    await leadline.accounts.require(accountId)
    const token = await leadline.accounts.rotateWebhookToken(accountId, operator())
    const webhookUrl = `${cfg.publicUrl}/api/ingest/lead`
    if (values.json) return io.out(json({ accountId, tokenId: token.id, token: token.secret, webhookUrl }))
    io.out(
      [
        `webhook token rotated for account ${accountId}; the old token no longer works`,
        `new webhook token (shown once, store it now): ${token.secret}`,
        `webhook URL: ${webhookUrl}`,
      ].join('\n'),
    )
  })
}
