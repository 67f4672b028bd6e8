/**
 * How the Twilio SDK's requests go on the wire: our `httpClient` (the SDK's documented extension
 * point). The SDK still builds every request (resource URL, form fields, credentials, User-Agent) and
 * reads every answer (records, pages, RestException); this client only carries them, with node:http,
 * in place of the SDK's axios, which cost about as much CPU again as the exchange itself a call
 * (docs/performance.md). It
 * 1. points every `*.twilio.com` URL at `apiUrl` when one is configured (Twilio-compatible carriers,
 *    the test fake),
 * 2. never retries (a 429 is the dialer's to wait on) and never follows a redirect,
 * 3. opens a fresh connection for every request, so a reset is never a stale pooled socket (which
 *    would make a placed call look "unknown") and a refused connection means unsent,
 * 4. notes whether a request left and what came back (`exchanges`), so each failure maps to exactly
 *    one CarrierFailure.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import http from 'node:http'
import https from 'node:https'
import twilio from 'twilio'
import type TwilioRequestClient from 'twilio/lib/base/RequestClient.js'
import type * as TwilioResponseModule from 'twilio/lib/http/response.js'

/** What one SDK call did on the wire; set by the request client, read when mapping a failure. */
export interface Exchange {
  sent: boolean
  status?: number
  headers?: Record<string, unknown>
}

export const exchanges = new AsyncLocalStorage<Exchange>()

/**
 * Points a Twilio URL at `apiUrl`: `https://api.twilio.com/2010-04-01/Accounts/AC…/Calls.json` with
 * `apiUrl = http://127.0.0.1:4010/base` becomes `http://127.0.0.1:4010/base/2010-04-01/Accounts/AC…/Calls.json`.
 * Only `twilio.com` and its subdomains are rewritten (not `eviltwilio.com`); other URLs pass unchanged.
 */
export function rewriteTwilioUrl(uri: string, apiUrl: string | URL): string {
  const target = new URL(uri)
  const host = target.hostname.toLowerCase()
  if (host !== 'twilio.com' && !host.endsWith('.twilio.com')) return uri
  const base = new URL(apiUrl)
  const prefix = base.pathname.replace(/\/+$/, '')
  return `${base.origin}${prefix}${target.pathname}${target.search}`
}

type RequestOptions<TData> = TwilioRequestClient.RequestOptions<TData>
type TwilioResponse<TData> = TwilioResponseModule.default<TData>

/** The error a request that outlived its time is destroyed with (a timeout code: the outcome is unknown). */
class TwilioTimeoutError extends Error {
  readonly code = 'ETIMEDOUT'
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`)
    this.name = 'TwilioTimeoutError'
  }
}

/**
 * Form fields as Twilio reads them: a list repeats its key (`StatusCallbackEvent=a&StatusCallbackEvent=b`,
 * the SDK's own `arrayFormat: "repeat"`); absent values are left out.
 */
export function twilioForm(fields: object): string {
  const form = new URLSearchParams()
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) form.append(key, String(item))
    }
  }
  return form.toString()
}

export class LeadlineTwilioRequestClient extends twilio.RequestClient {
  private readonly plainAgent = new http.Agent({ keepAlive: false })
  private readonly secureAgent: http.Agent

  constructor(
    private readonly apiUrl: URL | undefined,
    private readonly timeoutMs: number,
  ) {
    // The SDK's own client is made only for its https agent: its CA bundle (TWILIO_CA_BUNDLE) and
    // proxy (HTTP_PROXY) settings, without keep-alive. Its axios instance is never used.
    super({ timeout: timeoutMs, autoRetry: false, keepAlive: false })
    this.secureAgent = (this.axios.defaults.httpsAgent as http.Agent | undefined) ?? new https.Agent({ keepAlive: false })
  }

  override async request<TData>(opts: RequestOptions<TData>): Promise<TwilioResponse<TData>> {
    if (!opts.method) throw new Error('http method is required')
    if (!opts.uri) throw new Error('uri is required')
    const exchange = exchanges.getStore()
    const headers: Record<string, string | number> = { ...(opts.headers as Record<string, string> | undefined), Connection: 'close' }
    if (opts.username && opts.password) headers.Authorization = `Basic ${Buffer.from(`${opts.username}:${opts.password}`).toString('base64')}`
    else if (opts.authStrategy) headers.Authorization = await opts.authStrategy.getAuthString()
    let body: string | undefined
    if (opts.data !== undefined && opts.data !== null) {
      if (headers['Content-Type'] === 'application/x-www-form-urlencoded') body = twilioForm(opts.data as object)
      else if (headers['Content-Type'] === 'application/json') body = JSON.stringify(opts.data)
    }
    if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body)
    let uri = this.apiUrl ? rewriteTwilioUrl(opts.uri, this.apiUrl) : opts.uri
    if (opts.params !== undefined && opts.params !== null) {
      const query = twilioForm(opts.params as object)
      if (query !== '') uri += `${uri.includes('?') ? '&' : '?'}${query}`
    }
    if (exchange) exchange.sent = true
    const response = await this.send(uri, opts.method.toUpperCase(), headers, body, opts.timeout ?? this.timeoutMs)
    if (exchange) {
      exchange.status = response.statusCode
      exchange.headers = response.headers
    }
    // The SDK parses the body itself (JSON for records and pages, Twilio's error for a RestException).
    return response as unknown as TwilioResponse<TData>
  }

  /** One exchange on a fresh connection, answer read whole, within `timeoutMs` from start to end. */
  private send(uri: string, method: string, headers: Record<string, string | number>, body: string | undefined, timeoutMs: number): Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }> {
    const url = new URL(uri)
    const agent = url.protocol === 'https:' ? this.secureAgent : this.plainAgent
    return new Promise((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(url, { method, headers, agent }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.once('end', () => {
          clearTimeout(timer)
          resolve({ statusCode: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers })
        })
        response.once('error', fail)
      })
      let timedOut: TwilioTimeoutError | undefined
      const timer = setTimeout(() => {
        timedOut = new TwilioTimeoutError(timeoutMs)
        request.destroy(timedOut)
      }, timeoutMs)
      function fail(error: Error): void {
        clearTimeout(timer)
        // A request destroyed for its time may first report the broken answer: it is the time that ran out.
        reject(timedOut ?? error)
      }
      request.once('error', fail)
      request.end(body)
    })
  }

  destroy(): void {
    this.plainAgent.destroy()
    this.secureAgent.destroy()
  }
}
