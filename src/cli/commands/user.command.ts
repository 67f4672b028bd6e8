/**
 * `leadline user create|link`: console users. The operator creates an account's owner and hands
 * them a one-time link to set their password; the password itself never passes through the CLI.
 */
import { json, operator, parse, required, UsageError, withLeadline, type Io } from '../cli-io.ts'
import { setPasswordUrl, type PasswordLink } from '../../commands/users.ts'

function printLink(io: Io, publicUrl: string, link: PasswordLink, what: string, asJson: boolean | undefined): void {
  const url = setPasswordUrl(publicUrl, link.token)
  if (asJson) return io.out(json({ userId: link.userId, accountId: link.accountId, email: link.email, url, expiresAt: link.expiresAt }))
  io.out(
    [
      `${what} ${link.email} (${link.userId}) of account ${link.accountId}`,
      `one-time link to set the password (shown once, works once, until ${link.expiresAt}):`,
      `  ${url}`,
    ].join('\n'),
  )
}

export async function userCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  if (sub !== 'create' && sub !== 'link') throw new UsageError(`unknown command "user ${sub ?? ''}": use create or link`)
  const { values } = parse(rest, { account: { type: 'string' }, email: { type: 'string' }, json: { type: 'boolean' } })
  const accountId = required(values.account, '--account')
  const email = required(values.email, '--email')
  await withLeadline(io, async (leadline, cfg) => {
    await leadline.accounts.require(accountId)
    if (sub === 'create') return printLink(io, cfg.publicUrl, await leadline.users.create(accountId, email, operator()), 'user created:', values.json)
    return printLink(io, cfg.publicUrl, await leadline.users.issueLink(accountId, email, operator()), 'new link for', values.json)
  })
}
