/**
 * `leadline number list|search|buy|use`: the account's number, from the operator's side (docs/inbound.md
 * "Setting up the number"). Works on LEADLINE_STORE and the carrier the environment names, like the
 * account commands; `buy` shows the price and buys only with `--yes`, at most once.
 */
import type { ListedNumber } from '../../commands/number-setup.ts'
import { json, listing, operator, parse, required, shown, table, UsageError, withLeadline, type Io } from '../cli-io.ts'

/** A purchase that did not go through: its message on stderr, exit 1 (a failure, not bad input). */
export class NumberNotBought extends Error {
  override readonly name = 'NumberNotBought'
}

function holder(n: ListedNumber): string {
  if (n.holder.kind === 'another_account') return 'another account'
  if (n.holder.kind === 'none') return '-'
  return n.holder.use === 'inbound' ? 'this account (in use)' : `this account (${n.holder.use.replace('_', ' ')})`
}

function webhooks(n: ListedNumber, simulated: boolean): string {
  if (n.pointedHere) return 'Leadline'
  if (simulated) return 'none (simulated)'
  return n.voiceUrl ?? 'not set'
}

export async function numberCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'list': {
      const { values } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      await withLeadline(io, async (leadline, cfg) => {
        const found = await leadline.numberSetup.list(accountId, cfg.publicUrl)
        if (values.json) return io.out(json(found))
        const rows = found.numbers.map((n) => [n.number, [n.voice ? 'voice' : '', n.sms ? 'sms' : ''].filter(Boolean).join(','), holder(n), n.callerId ? 'yes' : '', webhooks(n, found.simulated)])
        const lines = [
          found.numbers.length === 0
            ? `no numbers in the ${found.carrier} account${found.simulated ? ' (simulated)' : ''} yet: leadline number search --area-code NXX`
            : table(['number', 'takes', 'used by', 'caller id', 'webhooks'], rows),
          ...found.purchases.map((p) => p.stage === 'unknown'
            ? `${p.number}: purchase outcome unknown (${shown(p.message ?? 'no answer')}): never asked again; if it is listed above, it was bought`
            : `${p.number}: being bought`),
        ]
        if (found.simulated) lines.push('carrier: simulated — fictional numbers, nothing rings')
        io.out(lines.join('\n'))
      })
      return
    }
    case 'search': {
      const { values } = parse(rest, {
        'area-code': { type: 'string' }, zip: { type: 'string' }, state: { type: 'string' }, near: { type: 'string' }, contains: { type: 'string' },
        limit: { type: 'string' }, json: { type: 'boolean' },
      })
      if (values.limit !== undefined && !/^\d{1,2}$/.test(values.limit)) throw new UsageError('--limit takes a whole number, 1 to 50')
      await withLeadline(io, async (leadline) => {
        const found = await leadline.numberSetup.search({
          areaCode: values['area-code'], postalCode: values.zip, region: values.state, nearNumber: values.near, contains: values.contains,
          limit: values.limit === undefined ? undefined : Number(values.limit),
        })
        if (values.json) return io.out(json(found))
        const simulated = leadline.carrier.name === 'simulated'
        io.out(found.length === 0
          ? 'no numbers for sale there: try a nearby area code, or --zip'
          : [
              table(['number', 'where', 'takes', 'monthly'], found.map((n) => [
                n.number, [n.locality, n.region, n.postalCode].filter((x) => x !== null).join(', '), [n.voice ? 'voice' : '', n.sms ? 'sms' : ''].filter(Boolean).join(','),
                n.monthlyPrice === null ? '-' : `${n.monthlyPrice.amount} ${n.monthlyPrice.currency}`,
              ])),
              ...(simulated ? ['carrier: simulated — fictional 555-01xx numbers, nothing rings'] : []),
            ].join('\n'))
      })
      return
    }
    case 'buy': {
      const { values } = parse(rest, { account: { type: 'string' }, number: { type: 'string' }, yes: { type: 'boolean' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const number = required(values.number, '--number').trim()
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        const monthly = await leadline.numberSetup.quote(number)
        const cost = monthly === null ? 'no monthly price given by the carrier' : `${monthly.amount} ${monthly.currency} a month`
        if (!values.yes) {
          // The confirm step: the price first, the purchase only when asked for again.
          if (values.json) return io.out(json({ number, carrier: leadline.carrier.name, monthlyPrice: monthly, bought: false }))
          return io.out(`would buy ${number} from ${leadline.carrier.name} (${cost}): nothing was bought; add --yes to buy it`)
        }
        const purchase = await leadline.numberSetup.buy(accountId, number, monthly, operator())
        if (values.json) io.out(json(purchase))
        if (purchase.stage === 'failed') throw new NumberNotBought(`${number} was not bought (${purchase.failure ?? 'rejected'}): ${purchase.message ?? ''}`)
        if (purchase.stage !== 'bought') {
          throw new NumberNotBought(`the purchase of ${number} has no known outcome (${purchase.message ?? 'no answer came'}): it is never asked again; if leadline number list shows it, it was bought`)
        }
        if (!values.json) io.out(`bought ${number} from ${purchase.carrier} (${shown(purchase.carrierSid)}, ${cost})\nnext: leadline number use --account ${accountId} --number ${number}`)
      })
      return
    }
    case 'use': {
      const { values } = parse(rest, { account: { type: 'string' }, number: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const number = required(values.number, '--number').trim()
      await withLeadline(io, async (leadline, cfg) => {
        const used = await leadline.numberSetup.use(accountId, number, cfg.publicUrl, operator())
        if (values.json) return io.out(json(used))
        const w = used.webhooks
        const was = (value: string | null | undefined) => (value === null || value === undefined ? 'not set' : value)
        io.out([
          `${number} is in use for account ${accountId}${used.claimed ? '' : ' (it was already)'}: calls and texts to it come here`,
          w.applied
            ? listing([
                ['voice url', `${w.voiceUrl} (POST; was ${was(w.before?.voiceUrl)})`],
                ['voice status', `${w.voiceStatusUrl} (POST; was ${was(w.before?.voiceStatusUrl)})`],
                ['sms url', `${w.smsUrl} (POST; was ${was(w.before?.smsUrl)})`],
                ['caller id', used.callerId.changed ? `${used.callerId.after ?? ''} (was ${used.callerId.before ?? 'not set'}: ${used.callerId.why})` : `unchanged, ${used.callerId.after ?? 'not set'}: ${used.callerId.why}`],
              ])
            : listing([
                ['webhooks', 'none to set: the simulated carrier plays calls and texts inside Leadline'],
                ['caller id', used.callerId.changed ? `${used.callerId.after ?? ''} (${used.callerId.why})` : `unchanged, ${used.callerId.after ?? 'not set'}: ${used.callerId.why}`],
              ]),
          ...used.warnings.map((warning) => `warning: ${warning}`),
        ].join('\n'))
      })
      return
    }
    default:
      throw new UsageError(`unknown command "number ${sub ?? ''}": use list, search, buy or use`)
  }
}
