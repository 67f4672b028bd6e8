/** `leadline leads`: the account's Inbound Leads list; `leadline leads clear-dnc`: the operator clears do-not-call, or a number's suppression. */
import { leadDecider } from '../../domain/lead/lead.decider.ts'
import { leadStream } from '../../domain/lead/lead.events.ts'
import { normalizePhone } from '../../domain/lead/intake/phone.ts'
import { json, operator, parse, required, table, UsageError, withLeadline, type Io } from '../cli-io.ts'

export async function leadsCommand(args: string[], io: Io): Promise<void> {
  if (args[0] === 'clear-dnc') return clearDoNotCall(args.slice(1), io)
  const { values } = parse(args, {
    account: { type: 'string' },
    source: { type: 'string' },
    vendor: { type: 'string' },
    since: { type: 'string' },
    dnc: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    json: { type: 'boolean' },
  })
  const accountId = required(values.account, '--account')
  const limit = values.limit === undefined ? undefined : Number(values.limit)
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError('--limit takes a whole number from 1')
  if (values.dnc !== undefined && values.dnc !== 'yes' && values.dnc !== 'no') throw new UsageError('--dnc takes yes or no')
  await withLeadline(io, async (leadline) => {
    await leadline.accounts.require(accountId)
    const page = leadline.inboundLeads.list(accountId, {
      ...(values.source !== undefined ? { source: values.source } : {}),
      ...(values.vendor !== undefined ? { vendor: values.vendor } : {}),
      ...(values.since !== undefined ? { since: values.since } : {}),
      ...(values.dnc !== undefined ? { doNotCall: values.dnc === 'yes' } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(values.cursor !== undefined ? { cursor: values.cursor } : {}),
    })
    if (values.json) return io.out(json({ list: 'Inbound Leads', ...page }))
    if (page.leads.length === 0) return io.out('Inbound Leads: no leads match')
    io.out(
      table(
        ['lead', 'name', 'phone', 'email', 'source', 'vendor', 'dnc', 'received'],
        page.leads.map((l) => [
          l.leadId, l.fullName ?? '', l.phone, l.email ?? '', l.source ?? '', l.vendor ?? '', l.doNotCall ? 'yes' : '', l.receivedAt,
        ]),
      ) + (page.nextCursor ? `\nmore: --cursor ${page.nextCursor}` : ''),
    )
  })
}

async function clearDoNotCall(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { account: { type: 'string' }, phone: { type: 'string' }, json: { type: 'boolean' } })
  const accountId = required(values.account, '--account')
  const phone = required(values.phone, '--phone')
  await withLeadline(io, async (leadline) => {
    const account = await leadline.accounts.require(accountId)
    const normalised = normalizePhone(phone, account.settings.defaultCountry)
    if (!normalised.ok) throw new UsageError(normalised.error.message)
    // The exact number: another number with the same last ten digits is another person, cleared apart from the lead.
    const phoneE164 = normalised.phone.e164
    const result = await leadline.commands.handle(leadStream(accountId, normalised.phone.last10), leadDecider, { type: 'ClearDoNotCall', phone: phoneE164 }, operator())
    const own = result.state.fields?.phone === phoneE164
    const changed = result.newEvents.length > 0
    if (values.json) return io.out(json({ leadId: result.state.leadId, phone: phoneE164, leadsOwnNumber: own, doNotCall: own ? false : result.state.doNotCall, suppressed: false, changed }))
    if (!own) return io.out(changed ? `${phoneE164} no longer suppressed (not the number of ${result.state.leadId}, whose do-not-call is unchanged)` : `${phoneE164} was not suppressed`)
    io.out(changed ? `do-not-call cleared for ${result.state.leadId}` : `${result.state.leadId} was not do-not-call`)
  })
}
