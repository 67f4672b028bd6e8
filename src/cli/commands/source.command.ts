/**
 * `leadline source map|maps|unmap`: a lead source's field map, which path of its bodies fills which
 * field (docs/lead-sources.md#field-maps). Each change is an account event, so it is audited, and
 * applies to the leads that arrive after it. `leadline source facebook …` connects Facebook Lead Ads pages (source-facebook.command.ts).
 */
import type { AccountState } from '../../domain/account/account.decider.ts'
import { parseFieldMapping } from '../../domain/lead/intake/field-map.ts'
import { json, operator, parse, required, table, UsageError, withLeadline, type Io } from '../cli-io.ts'

function mapRows(account: AccountState, only?: string): string[][] {
  return [...account.fieldMaps]
    .filter(([source]) => only === undefined || source === only)
    .flatMap(([source, map]) => map.mappings.map((m) => [source, m.field, m.path, map.setAt]))
}

function mapsJson(account: AccountState, only?: string) {
  return {
    accountId: account.accountId,
    fieldMaps: Object.fromEntries([...account.fieldMaps].filter(([source]) => only === undefined || source === only).map(([source, map]) => [source, { mappings: map.mappings, setAt: map.setAt }])),
  }
}

export async function sourceCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'map': {
      const { values, positionals } = parse(rest, { account: { type: 'string' }, source: { type: 'string' }, json: { type: 'boolean' } }, true)
      const accountId = required(values.account, '--account')
      const source = required(values.source, '--source')
      if (positionals.length === 0) throw new UsageError('name at least one mapping, such as phone=contact.primary.number')
      const mappings = positionals.map(parseFieldMapping)
      await withLeadline(io, async (leadline, cfg) => {
        await leadline.accounts.require(accountId)
        const account = await leadline.accounts.setFieldMap(accountId, source, mappings, operator())
        const name = source.trim().toLowerCase()
        if (values.json) return io.out(json(mapsJson(account, name)))
        io.out([
          `field map of source ${name} set for account ${accountId}; it reads the leads that arrive from now on`,
          table(['source', 'field', 'path', 'set'], mapRows(account, name)),
          `webhook URL for this source: ${cfg.publicUrl}/api/ingest/lead?source=${name}`,
        ].join('\n'))
      })
      return
    }
    case 'maps': {
      const { values } = parse(rest, { account: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      await withLeadline(io, async (leadline) => {
        const account = await leadline.accounts.require(accountId)
        if (values.json) return io.out(json(mapsJson(account)))
        io.out(account.fieldMaps.size === 0 ? 'no field maps: leadline source map --account ACCOUNT_ID --source NAME FIELD=PATH' : table(['source', 'field', 'path', 'set'], mapRows(account)))
      })
      return
    }
    case 'unmap': {
      const { values } = parse(rest, { account: { type: 'string' }, source: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const source = required(values.source, '--source')
      await withLeadline(io, async (leadline) => {
        const before = await leadline.accounts.require(accountId)
        const name = source.trim().toLowerCase()
        await leadline.accounts.removeFieldMap(accountId, source, operator())
        const removed = before.fieldMaps.has(name)
        if (values.json) return io.out(json({ accountId, source: name, removed }))
        io.out(removed ? `field map of source ${name} removed; its leads are read by field names alone from now on` : `source ${name} had no field map`)
      })
      return
    }
    case 'facebook':
      return (await import('./source-facebook.command.ts')).sourceFacebookCommand(rest, io)
    default:
      throw new UsageError(`unknown command "source ${sub ?? ''}": use map, maps, unmap or facebook`)
  }
}
