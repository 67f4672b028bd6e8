/**
 * `leadline source facebook connect|list|disconnect|retry`: Facebook pages and their leads
 * (docs/facebook-lead-ads.md). A page access token is sealed before it reaches the log and never
 * printed again, by any command.
 */
import fs from 'node:fs'
import { json, operator, parse, required, table, UsageError, withLeadline, type Io } from '../cli-io.ts'
import { FACEBOOK_WEBHOOK_PATH } from '../../http/sources/facebook.route.ts'

const STAGES = ['due', 'fetching', 'received', 'failed'] as const

/** The token from --page-token or --page-token-file (which keeps it out of the shell's history and `ps`). */
function pageTokenOf(values: { 'page-token'?: string | undefined; 'page-token-file'?: string | undefined }): string {
  if (values['page-token'] !== undefined && values['page-token-file'] !== undefined) throw new UsageError('give --page-token or --page-token-file, not both')
  if (values['page-token-file'] !== undefined) {
    try {
      return fs.readFileSync(values['page-token-file'], 'utf8').trim()
    } catch (error) {
      throw new UsageError(`cannot read --page-token-file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
  }
  return required(values['page-token'], '--page-token (or --page-token-file)')
}

export async function sourceFacebookCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'connect': {
      const { values } = parse(rest, { account: { type: 'string' }, 'page-id': { type: 'string' }, 'page-token': { type: 'string' }, 'page-token-file': { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const pageId = required(values['page-id'], '--page-id')
      const token = pageTokenOf(values)
      await withLeadline(io, async (leadline, cfg) => {
        const page = await leadline.facebookLeadAds.connectPage(accountId, pageId, token, operator())
        const callbackUrl = `${cfg.publicUrl}${FACEBOOK_WEBHOOK_PATH}`
        if (values.json) return io.out(json({ accountId, pageId: page.pageId, connectedAt: page.connectedAt, callbackUrl, facebookConfigured: cfg.facebook !== null }))
        io.out([
          `Facebook page ${page.pageId} connected to account ${accountId}: its leads arrive in this account`,
          'the page access token is stored sealed and is never shown again',
          `callback URL for the app's webhook (page, leadgen): ${callbackUrl}`,
        ].join('\n'))
      })
      return
    }
    case 'disconnect': {
      const { values } = parse(rest, { account: { type: 'string' }, 'page-id': { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const pageId = required(values['page-id'], '--page-id')
      await withLeadline(io, async (leadline) => {
        await leadline.facebookLeadAds.disconnectPage(accountId, pageId, operator())
        if (values.json) return io.out(json({ accountId, pageId, disconnected: true }))
        io.out(`Facebook page ${pageId} disconnected from account ${accountId}: its notifications are logged and not recorded from now on`)
      })
      return
    }
    case 'list': {
      const { values } = parse(rest, { account: { type: 'string' }, stage: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const stage = values.stage as (typeof STAGES)[number] | undefined
      if (stage !== undefined && !STAGES.includes(stage)) throw new UsageError(`--stage takes ${STAGES.join(', ')}`)
      const limit = values.limit === undefined ? 20 : Number(values.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('--limit takes 1 to 500')
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        const pages = await leadline.facebookLeadAds.pages(accountId)
        const leads = await leadline.facebookLeadAds.leads(accountId, { limit, ...(stage !== undefined ? { stage } : {}) })
        if (values.json) return io.out(json({ accountId, pages, leads }))
        io.out([
          pages.length === 0 ? 'no Facebook pages: leadline source facebook connect --account ACCOUNT_ID --page-id PAGE_ID --page-token TOKEN' : table(['page', 'connected', 'token set'], pages.map((p) => [p.pageId, p.connectedAt, p.tokenSetAt])),
          '',
          leads.length === 0 ? 'no Facebook leads yet' : table(['leadgen id', 'page', 'form', 'ad', 'notified', 'stage', 'attempts', 'lead', 'last failure'], leads.map((l) => [l.leadgenId, l.pageId, l.formId, l.adId, l.notifiedAt, l.stage, l.attempts, l.leadId, l.failure === null ? '' : `${l.failure}: ${l.message ?? ''}`])),
        ].join('\n'))
      })
      return
    }
    case 'retry': {
      const { values } = parse(rest, { account: { type: 'string' }, 'leadgen-id': { type: 'string' }, json: { type: 'boolean' } })
      const accountId = required(values.account, '--account')
      const leadgenId = required(values['leadgen-id'], '--leadgen-id')
      await withLeadline(io, async (leadline) => {
        await leadline.accounts.require(accountId)
        await leadline.facebookLeadAds.retry(accountId, leadgenId, operator())
        if (values.json) return io.out(json({ accountId, leadgenId, retried: true }))
        io.out(`Facebook lead ${leadgenId} will be fetched again by the running server`)
      })
      return
    }
    default:
      throw new UsageError(`unknown command "source facebook ${sub ?? ''}": use connect, list, disconnect or retry`)
  }
}
