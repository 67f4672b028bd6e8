/**
 * TEST DOUBLE: a fake Facebook Graph API on 127.0.0.1, reached by Leadline's own Graph client through
 * FACEBOOK_GRAPH_URL. Not a mock of our code: an HTTP server that answers the one request Leadline
 * makes, as Facebook does.
 *
 * Graph behaviours it models:
 * - `GET /{version}/{leadgen_id}?access_token=…&appsecret_proof=…`: `200` with the lead as the Graph
 *   API returns it (`{id, created_time, field_data: [{name, values}]}`); `404`-shaped
 *   `{"error": {code: 100, type: "GraphMethodException"}}` for an id it does not hold.
 * - The page access token is checked (`190` OAuthException, HTTP 400, for any other token), and so is
 *   `appsecret_proof` (HMAC-SHA256 of the token with the app secret; code 100 when wrong).
 * Faults, programmed for the next requests in order: an HTTP status with a Graph error body (500
 * code 2 is_transient, 400 code 190 expired token, 400 code 4 rate limit …), or no answer at all
 * (the request hangs until the client gives up).
 */
import { createHmac } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export const FAKE_APP_SECRET = 'fake-app-secret-0123456789abcdef'
export const FAKE_VERIFY_TOKEN = 'fake-verify-token-leadline'
export const FAKE_PAGE_TOKEN = 'EAAFakePageAccessTokenLeadline0123456789SECRET'

export type GraphFault =
  | { kind: 'status'; status: number; code: number; message?: string; transient?: boolean }
  | { kind: 'hang' }

export interface GraphRequest {
  readonly path: string
  readonly version: string
  readonly leadgenId: string
  readonly accessToken: string | null
  readonly appsecretProof: string | null
  readonly answered: number | 'hung'
}

export interface FakeGraph {
  readonly url: string
  /** Holds a lead: `fields` become its field_data. */
  addLead(leadgenId: string, fields: Record<string, string | string[]>, createdTime?: string): void
  /** Faults for the next requests, first in first out. */
  fail(...faults: GraphFault[]): void
  requests(): GraphRequest[]
  /** Answers hung requests (with a 500) and closes. */
  close(): Promise<void>
}

export async function startFakeGraph(options: { pageToken?: string; appSecret?: string } = {}): Promise<FakeGraph> {
  const pageToken = options.pageToken ?? FAKE_PAGE_TOKEN
  const appSecret = options.appSecret ?? FAKE_APP_SECRET
  const leads = new Map<string, Record<string, unknown>>()
  const faults: GraphFault[] = []
  const seen: GraphRequest[] = []
  const hung = new Set<http.ServerResponse>()

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://graph.test')
    const [, version = '', leadgenId = ''] = url.pathname.split('/')
    const accessToken = url.searchParams.get('access_token')
    const appsecretProof = url.searchParams.get('appsecret_proof')
    const note = (answered: GraphRequest['answered']) => seen.push({ path: url.pathname, version, leadgenId, accessToken, appsecretProof, answered })
    const error = (status: number, code: number, message: string, transient = false) => {
      note(status)
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message, type: code === 190 ? 'OAuthException' : 'GraphMethodException', code, is_transient: transient, fbtrace_id: 'AFakeTrace' } }))
    }
    const fault = faults.shift()
    if (fault?.kind === 'hang') {
      note('hung')
      hung.add(response)
      return
    }
    if (fault?.kind === 'status') return error(fault.status, fault.code, fault.message ?? 'An unexpected error has occurred. Please retry your request later.', fault.transient ?? false)
    if (request.method !== 'GET' || !/^v\d+\.\d+$/.test(version)) return error(400, 100, 'Unknown path components')
    if (accessToken !== pageToken) return error(400, 190, 'Error validating access token: Session has expired.')
    if (appsecretProof !== createHmac('sha256', appSecret).update(pageToken).digest('hex')) return error(400, 100, 'Invalid appsecret_proof provided in the API argument')
    const lead = leads.get(leadgenId)
    if (lead === undefined) return error(400, 100, `Unsupported get request. Object with ID '${leadgenId}' does not exist`)
    note(200)
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify(lead))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    addLead(leadgenId, fields, createdTime = '2026-11-26T13:00:00+0000') {
      leads.set(leadgenId, { created_time: createdTime, id: leadgenId, field_data: Object.entries(fields).map(([name, value]) => ({ name, values: Array.isArray(value) ? value : [value] })) })
    },
    fail(...more) {
      faults.push(...more)
    },
    requests: () => [...seen],
    async close() {
      for (const response of hung) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A leadgen notification as Facebook posts it to the app's webhook. */
export function leadgenNotification(changes: ReadonlyArray<{ leadgenId: string; pageId: string; formId?: string; adId?: string }>): string {
  const time = 1_795_000_000
  return JSON.stringify({
    object: 'page',
    entry: changes.map((c) => ({
      id: c.pageId,
      time,
      changes: [{ field: 'leadgen', value: { ad_id: c.adId ?? '238500000000001', form_id: c.formId ?? '1200000000000001', leadgen_id: c.leadgenId, created_time: time, page_id: c.pageId, adgroup_id: '238500000000002' } }],
    })),
  })
}

/** `X-Hub-Signature-256` for `body`, as Facebook signs it with the app secret. */
export function hubSignature(body: string, appSecret = FAKE_APP_SECRET): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`
}
