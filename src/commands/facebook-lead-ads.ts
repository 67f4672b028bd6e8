/**
 * Facebook Lead Ads' use cases: connect a page to an account with its page access token (sealed
 * before it reaches the log), record the leadgen notifications Facebook posts (once per leadgen id),
 * receive a fetched lead through the webhook's intake (once, whatever crashes), and retry a fetch
 * that needed a person. The fetch itself is the fetcher's (src/processes/facebook-lead-fetcher/).
 */
import type { Logger } from 'pino'
import type { AccountState } from '../domain/account/account.decider.ts'
import { facebookLeadDecider, type FacebookLeadState, type LeadgenNotice } from '../domain/facebook-lead-ads/facebook-lead.decider.ts'
import { facebookLeadStream } from '../domain/facebook-lead-ads/facebook-lead.events.ts'
import { facebookPageDecider, type FacebookPageState } from '../domain/facebook-lead-ads/facebook-page.decider.ts'
import { FACEBOOK_ID, facebookPageStream, pageTokenPurpose } from '../domain/facebook-lead-ads/facebook-page.events.ts'
import { leadDecider } from '../domain/lead/lead.decider.ts'
import { leadStream } from '../domain/lead/lead.events.ts'
import { flattenLeadAdsPayload, normalizeLeadInput } from '../domain/lead/intake/normalize-lead-input.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { newId } from '../domain/shared/ids.ts'
import type { CommandContext, CommandHandler } from '../eventstore/command-handler.ts'
import type { ProjectionRunner } from '../read-models/projection-runner.ts'
import type { FacebookLeadAdsQueries, FacebookLeadRow, FacebookPageRow } from '../../projections/facebook-lead-ads/facebook-lead-ads.queries.ts'
import type { SecretBox } from '../integrations/secrets/secret-box.ts'
import type { Accounts } from './accounts.ts'
import { receiveLead, type IntakeResult } from './receive-lead.command.ts'


/** Page access tokens are a few hundred characters; anything past this is not one. */
const MAX_PAGE_TOKEN = 1024

export interface NotificationOutcome {
  /** Notifications recorded now: each lead is fetched after the answer. */
  readonly recorded: number
  /** Leadgen ids recorded before (Facebook delivered them again): nothing new. */
  readonly duplicates: number
  /** Notifications for a page no account has connected: logged for the operator, nothing recorded. */
  readonly unknownPages: number
}

export interface FacebookLeadAdsDeps {
  readonly commands: CommandHandler
  readonly runner: ProjectionRunner
  readonly accounts: Pick<Accounts, 'get' | 'require'>
  readonly queries: FacebookLeadAdsQueries
  readonly box: Pick<SecretBox, 'seal' | 'open'>
  readonly clock: () => Date
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>
}

export class FacebookLeadAds {
  constructor(private readonly deps: FacebookLeadAdsDeps) {}

  /** Connects `pageId` to the account (or gives it a new token); the token is sealed here and never shown again. */
  async connectPage(accountId: string, pageId: string, pageToken: string, context: CommandContext): Promise<FacebookPageState> {
    await this.deps.accounts.require(accountId)
    const page = pageIdOf(pageId)
    const token = pageToken.trim()
    if (token === '' || token.length > MAX_PAGE_TOKEN || /\s/.test(token)) {
      throw new DomainError('invalid_page_token', `a page access token is one word of at most ${MAX_PAGE_TOKEN} characters`)
    }
    const sealed = this.deps.box.seal(token, pageTokenPurpose(page, accountId))
    const result = await this.deps.commands.handle(facebookPageStream(page), facebookPageDecider, { type: 'ConnectFacebookPage', pageId: page, accountId, pageTokenSealed: sealed }, context)
    return result.state
  }

  async disconnectPage(accountId: string, pageId: string, context: CommandContext): Promise<void> {
    const page = pageIdOf(pageId)
    await this.deps.commands.handle(facebookPageStream(page), facebookPageDecider, { type: 'DisconnectFacebookPage', pageId: page, accountId }, context)
  }

  /** The page as its own stream has it now (not a read model: a page connected a moment ago is found). */
  async page(pageId: string): Promise<FacebookPageState> {
    return (await this.deps.commands.load(facebookPageStream(pageId), facebookPageDecider)).state
  }

  /** The page access token of a page connected to `accountId`, opened; null when it is not connected to it. */
  async pageToken(pageId: string, accountId: string): Promise<string | null> {
    const page = await this.page(pageId)
    if (page.accountId !== accountId || page.pageTokenSealed === null) return null
    return this.deps.box.open(page.pageTokenSealed, pageTokenPurpose(pageId, accountId))
  }

  async pages(accountId: string): Promise<FacebookPageRow[]> {
    await this.deps.runner.catchUp()
    return this.deps.queries.pages(accountId)
  }

  async leads(accountId: string, options: { stage?: FacebookLeadRow['stage']; limit?: number } = {}): Promise<FacebookLeadRow[]> {
    await this.deps.runner.catchUp()
    return this.deps.queries.leads(accountId, options)
  }

  /**
   * Records each notice on its own stream before anything is fetched: a leadgen id recorded before
   * is a duplicate (nothing appended), a page no account connected is logged and left.
   */
  async recordNotifications(notices: readonly LeadgenNotice[], context: CommandContext): Promise<NotificationOutcome> {
    const pages = new Map<string, Promise<FacebookPageState>>()
    const outcomes = await Promise.all(
      notices.map(async (notice) => {
        let page = pages.get(notice.pageId)
        if (page === undefined) pages.set(notice.pageId, (page = this.page(notice.pageId)))
        const { accountId } = await page
        if (accountId === null) {
          this.deps.logger?.warn({ pageId: notice.pageId, leadgenId: notice.leadgenId }, 'Facebook lead for a page no account has connected: not recorded (leadline source facebook connect)')
          return 'unknown' as const
        }
        const result = await this.deps.commands.handle(facebookLeadStream(accountId, notice.leadgenId), facebookLeadDecider, { type: 'NotifyFacebookLead', accountId, notice, fetchId: newId('fbf') }, context)
        return result.newEvents.length > 0 ? ('recorded' as const) : ('duplicate' as const)
      }),
    )
    const count = (kind: string) => outcomes.filter((o) => o === kind).length
    return { recorded: count('recorded'), duplicates: count('duplicate'), unknownPages: count('unknown') }
  }

  /** A fetch that failed for good, decided again now (after the page token was renewed, say). */
  async retry(accountId: string, leadgenId: string, context: CommandContext): Promise<FacebookLeadState> {
    if (!FACEBOOK_ID.test(leadgenId)) throw new DomainError('facebook_lead_not_found', 'a leadgen id is digits')
    const result = await this.deps.commands.handle(facebookLeadStream(accountId, leadgenId), facebookLeadDecider, { type: 'RetryFacebookLeadFetch', fetchId: newId('fbf') }, context)
    return result.state
  }

  /**
   * Receives the lead the Graph API answered through the webhook's intake, with Facebook's ids kept
   * on it (`leadgen_id`, `page_id`, `form_id`, `ad_id`), once: a lead already received for this
   * leadgen id (the process stopped before it recorded so) is found on the lead's stream by its
   * correlation id and not received again.
   */
  async receiveFetchedLead(account: AccountState, leadgen: FacebookLeadState, graphLead: Record<string, unknown>, context: CommandContext): Promise<IntakeResult | { readonly leadId: string; readonly created: false; readonly already: true }> {
    const notice = leadgen.notice as LeadgenNotice
    const body: Record<string, unknown> = {
      ...graphLead,
      leadgen_id: notice.leadgenId,
      page_id: notice.pageId,
      ...(notice.formId !== null ? { form_id: notice.formId } : {}),
      ...(notice.adId !== null ? { ad_id: notice.adId } : {}),
    }
    delete body['id']
    const correlationId = facebookLeadStream(account.accountId, notice.leadgenId)
    const input = flattenLeadAdsPayload(body)
    const normalised = input === null ? null : normalizeLeadInput(input, { defaultCountry: account.settings.defaultCountry, timeZone: account.settings.timeZone, industry: account.settings.industry, now: this.deps.clock() })
    if (normalised?.ok === true) {
      const { state, events } = await this.deps.commands.load(leadStream(account.accountId, normalised.lead.phoneLast10), leadDecider)
      if (events.some((e) => e.metadata.correlationId === correlationId && (e.type === 'LeadReceived' || e.type === 'LeadUpdated'))) return { leadId: state.leadId, created: false, already: true }
    }
    const facts: Record<string, string> = { leadgen_id: notice.leadgenId, page_id: notice.pageId }
    if (notice.formId !== null) facts['form_id'] = notice.formId
    if (notice.adId !== null) facts['ad_id'] = notice.adId
    return receiveLead(this.deps, account, body, { ...context, correlationId }, { form: { form: 'facebook_lead_ads', facts } })
  }
}

function pageIdOf(pageId: string): string {
  const page = pageId.trim()
  if (!FACEBOOK_ID.test(page)) throw new DomainError('invalid_page_id', 'a Facebook page id is digits (Page settings → About → Page ID)')
  return page
}
