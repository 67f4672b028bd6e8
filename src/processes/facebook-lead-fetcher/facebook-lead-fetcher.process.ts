/**
 * The Facebook lead fetcher: performs each decision to fetch a notified lead (`FacebookLeadFetchDue`)
 * in the effect shape: claim (`FacebookLeadFetchStarted`) → GET the lead from the Graph API with the
 * page's token → receive it through the webhook's intake → record (`FacebookLeadReceived`). A passing
 * failure (5xx, a timeout, a rate limit) is recorded with the next decision, due after an
 * exponential backoff; one that needs a person (an expired token: a 4xx) is recorded failed and waits
 * for `leadline source facebook retry`. Decisions are on the log, so nothing waits only in memory:
 * after a start, `resume` schedules every decision no one claimed, and a claim left without an
 * outcome (the process stopped mid-fetch) is decided again, since asking the Graph API twice is
 * harmless and the lead is received once (FacebookLeadAds.receiveFetchedLead).
 */
import { facebookLeadDecider, type FacebookLeadState } from '../../domain/facebook-lead-ads/facebook-lead.decider.ts'
import { FACEBOOK_FETCH_EFFECT, type FacebookFetchFailure, type FacebookLeadFetchDue } from '../../domain/facebook-lead-ads/facebook-lead.events.ts'
import type { RecordedEvent } from '../../domain/event.ts'
import { DomainError } from '../../domain/shared/decider.ts'
import { newId } from '../../domain/shared/ids.ts'
import { GraphError, type FacebookGraph } from '../../integrations/facebook/graph-api.ts'
import type { Accounts } from '../../commands/accounts.ts'
import type { FacebookLeadAds } from '../../commands/facebook-lead-ads.ts'
import { EffectProcess, NODE_ID, type EffectProcessOptions, type StuckClaim } from '../effect-process.ts'
import type { CreateEffectProcess } from '../effect-processes.ts'
import type { Reaction } from '../process-runner.ts'

/** After a passing failure, the next fetch waits this long (by attempt): about 16 hours in all, then a person decides. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000]

const GRAPH_FAILURES: Record<GraphError['failure'], FacebookFetchFailure> = {
  unavailable: 'graph_unavailable',
  timeout: 'timeout',
  rate_limited: 'rate_limited',
  refused: 'graph_refused',
}

export interface FacebookLeadFetcherOptions extends EffectProcessOptions {
  readonly accounts: Pick<Accounts, 'get'>
  readonly facebook: FacebookLeadAds
  readonly graph: FacebookGraph
  /** The wait before each retry, by attempt; after the last, the lead waits for a retry by hand. */
  readonly retryDelaysMs?: readonly number[]
  /** The Graph API's timeout: a claim older than twice this, with no outcome, was interrupted. */
  readonly graphTimeoutMs: number
}

/** Facebook's lead fetcher, on a node with FACEBOOK_* set (effect-processes.ts finds it here). */
export const createEffectProcess: CreateEffectProcess = (deps) =>
  deps.facebook === null
    ? null
    : new FacebookLeadFetcher({
        ...deps, facebook: deps.facebook.ads, graph: deps.facebook.graph, graphTimeoutMs: deps.facebook.graphTimeoutMs,
        ...(deps.facebook.retryDelaysMs ? { retryDelaysMs: deps.facebook.retryDelaysMs } : {}),
      })

type Outcome =
  | { readonly kind: 'received' | 'failed' | 'retrying' | 'skipped' }
  /** Woken before the clock says due (a timer may fire a moment early): scheduled again once out of `inFlight`. */
  | { readonly kind: 'early'; readonly dueAt: string }

export class FacebookLeadFetcher extends EffectProcess<FacebookLeadFetcherOptions> {
  override readonly effect = FACEBOOK_FETCH_EFFECT
  /** Decisions waiting for their due time, by fetch id. */
  private readonly timers = new Map<string, NodeJS.Timeout>()
  private stopping = false

  private get delays(): readonly number[] {
    return this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS
  }

  /** A decision from the log (this node's or another's): fetched when due. Nothing is held: the decision is on the log. */
  protected override async react(event: RecordedEvent): Promise<Reaction> {
    const { fetchId, dueAt } = (event as unknown as FacebookLeadFetchDue).data
    this.schedule(event.stream, fetchId, dueAt)
  }

  /** Fetches decision `fetchId` of `stream` at `dueAt` (at once when past); a decision scheduled or running already is left be. */
  schedule(stream: string, fetchId: string, dueAt: string): void {
    if (this.stopping || this.timers.has(fetchId) || this.inFlight.has(fetchId)) return
    const wait = Math.max(0, Date.parse(dueAt) - this.options.clock().getTime())
    const timer = setTimeout(() => {
      this.timers.delete(fetchId)
      void this.fetch(stream, fetchId).catch((error: unknown) => {
        this.options.logger?.error({ err: error, stream, fetchId }, 'fetching a Facebook lead failed: the claim is decided again later')
      })
    }, Math.min(wait, 2 ** 31 - 1))
    timer.unref()
    this.timers.set(fetchId, timer)
  }

  /** Performs a decision once per process; a caller that finds it running waits for the same outcome. */
  fetch(stream: string, fetchId: string): Promise<Outcome> {
    let running = this.inFlight.get(fetchId) as Promise<Outcome> | undefined
    if (!running) {
      running = this.perform(stream, fetchId).finally(() => this.inFlight.delete(fetchId))
      // After the delete: schedule() leaves a fetch it finds running be.
      void running.then((outcome) => outcome.kind === 'early' && this.schedule(stream, fetchId, outcome.dueAt), () => undefined)
      this.inFlight.set(fetchId, running)
    }
    return running
  }

  private async perform(stream: string, fetchId: string): Promise<Outcome> {
    const { commands, accounts, facebook, graph, clock, logger } = this.options
    const actor = { actor: this.actor, correlationId: stream }
    const { state } = await commands.load(stream, facebookLeadDecider)
    if (state.fetch?.fetchId !== fetchId || state.stage !== 'due') return { kind: 'skipped' }
    const due = Date.parse(state.fetch.dueAt) - clock().getTime()
    if (due > 0) return { kind: 'early', dueAt: state.fetch.dueAt }
    const claim = await commands.handle(stream, facebookLeadDecider, { type: 'StartFacebookLeadFetch', fetchId, node: NODE_ID }, actor)
    if (claim.newEvents.length === 0) return { kind: 'skipped' } // claimed elsewhere
    const notice = state.notice
    const account = await accounts.get(state.accountId)
    if (notice === null || account === null) return this.fail(stream, fetchId, claim.state, 'lead_refused', 'the account no longer exists', null)

    let token: string | null
    try {
      token = await facebook.pageToken(notice.pageId, state.accountId)
    } catch (error) {
      return this.fail(stream, fetchId, claim.state, 'token_unreadable', `the page access token does not open: ${(error as Error).message}`, null)
    }
    if (token === null) {
      return this.fail(stream, fetchId, claim.state, 'page_not_connected', `Facebook page ${notice.pageId} is not connected to this account: leadline source facebook connect, then retry`, null)
    }

    let lead: Record<string, unknown>
    try {
      lead = await graph.fetchLead(notice.leadgenId, token)
    } catch (error) {
      if (!(error instanceof GraphError)) throw error
      logger?.warn({ leadgenId: notice.leadgenId, failure: error.failure, httpStatus: error.httpStatus, graphCode: error.graphCode, message: error.message }, 'Graph API did not give the Facebook lead')
      return this.fail(stream, fetchId, claim.state, GRAPH_FAILURES[error.failure], error.message, error)
    }

    try {
      const received = await facebook.receiveFetchedLead(account, claim.state, lead, actor)
      await commands.handle(stream, facebookLeadDecider, { type: 'RecordFacebookLeadReceived', fetchId, leadId: received.leadId, created: received.created }, actor)
      return { kind: 'received' }
    } catch (error) {
      // Intake refused what the person sent (no phone, say): a person must look; the raw answer is not kept.
      if (error instanceof DomainError) return this.fail(stream, fetchId, claim.state, 'lead_refused', `${error.code}: ${error.message}`, null)
      throw error
    }
  }

  /** Records a failure: a passing one with the next decision (backoff by attempt), the rest for a person. */
  private async fail(stream: string, fetchId: string, state: FacebookLeadState, failure: FacebookFetchFailure, message: string, graphError: GraphError | null): Promise<Outcome> {
    const { commands, clock } = this.options
    const attempt = state.fetch?.attempt ?? 1
    const delay = graphError?.passing === true || failure === 'interrupted' ? this.delays[attempt - 1] : undefined
    const retry = delay === undefined ? null : { fetchId: newId('fbf'), dueAt: new Date(clock().getTime() + delay).toISOString() }
    await commands.handle(
      stream,
      facebookLeadDecider,
      { type: 'RecordFacebookLeadFetchFailed', fetchId, failure, message: message.slice(0, 500), httpStatus: graphError?.httpStatus ?? null, graphCode: graphError?.graphCode ?? null, retry },
      { actor: this.actor, correlationId: stream },
    )
    if (retry !== null) this.schedule(stream, retry.fetchId, retry.dueAt)
    return { kind: retry !== null ? 'retrying' : 'failed' }
  }

  /** Every decision no one claimed, each at its due time. */
  protected override async resume(): Promise<void> {
    const { claims, commands } = this.options
    for (const accountId of claims.accountsWithUnclaimed(this.name)) {
      for (let after = -1; ;) {
        const page = claims.unclaimed(this.name, accountId, after, 500)
        for (const row of page) {
          const { state } = await commands.load(row.stream, facebookLeadDecider)
          if (state.fetch?.fetchId === row.id && state.stage === 'due') this.schedule(row.stream, row.id, state.fetch.dueAt)
        }
        const last = page[page.length - 1]
        if (last === undefined) break
        after = last.decidedPosition
      }
    }
  }

  /** A claim older than any fetch can take (twice the Graph API's timeout) had its process stop under it. */
  protected override stuck(before: string): readonly StuckClaim[] {
    const own = new Date(this.options.clock().getTime() - 2 * this.options.graphTimeoutMs).toISOString()
    return super.stuck(own > before ? own : before)
  }

  /** An interrupted fetch is decided again at once, never left "outcome unknown": reading a lead twice is harmless. */
  protected override async markUnknown(claim: StuckClaim): Promise<boolean> {
    const { commands, clock } = this.options
    const retry = { fetchId: newId('fbf'), dueAt: clock().toISOString() }
    const result = await commands.handle(
      claim.stream,
      facebookLeadDecider,
      { type: 'RecordFacebookLeadFetchFailed', fetchId: claim.id, failure: 'interrupted', message: 'the fetch was interrupted (the process stopped): fetched again', httpStatus: null, graphCode: null, retry },
      { actor: this.actor, correlationId: claim.stream },
    )
    if (result.newEvents.length === 0) return false
    this.schedule(claim.stream, retry.fetchId, retry.dueAt)
    return true
  }

  override async stop(): Promise<void> {
    this.stopping = true
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    await Promise.allSettled([...this.inFlight.values()])
  }
}
