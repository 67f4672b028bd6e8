import { McpError } from '@modelcontextprotocol/sdk/types.js'
/**
 * What the tool endpoint tests share: an app with an account and one key per scope set, raw
 * JSON-RPC posts through `inject`, leads pushed through the real webhook, and the SDK's Client over
 * a real socket.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Test } from 'tap'
import type { Scope } from '../../../src/domain/account/account.events.ts'
import { buildApp, operatorContext, type TestApp } from '../../helpers/build-app.ts'
import { leadDecider, type LeadCommand } from '../../../src/domain/lead/lead.decider.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'

export const MCP = '/api/mcp'

/** Every non-empty set of scopes a key can have. */
export const SCOPE_SETS: readonly (readonly Scope[])[] = [['read'], ['write'], ['dial'], ['read', 'write'], ['read', 'dial'], ['write', 'dial'], ['read', 'write', 'dial']]

export interface RpcBody {
  jsonrpc?: string
  id?: unknown
  result?: Record<string, any>
  error?: { code: number; message: string; data: { code: string; [k: string]: any } }
}

/** API keys (or key ids) by scope set: `read`, `write`, `dial`, `all`, and `read,dial`-style names for the rest. */
export type ByScopeSet = Readonly<Record<'read' | 'write' | 'dial' | 'all', string>> & Readonly<Record<string, string | undefined>>

export interface McpTestAccount {
  readonly accountId: string
  readonly token: string
  /** API keys by scope set, e.g. keys['read,dial']; `keys.all` has every scope. */
  readonly keys: ByScopeSet
  readonly keyIds: ByScopeSet
  /** Pushes a lead through the webhook and waits until Inbound Leads has it. */
  pushLead(fields: Record<string, unknown>): Promise<{ leadId: string; phone: string }>
}

export interface McpTestApp extends TestApp {
  /** Creates an account with a key for every scope set. */
  account(name?: string, settings?: Record<string, unknown>): Promise<McpTestAccount>
  /** POSTs a raw body (an object is sent as JSON) with the given key. */
  post(body: unknown, key?: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, unknown>; raw: string }>
  /** tools/call with the given key; answers the JSON-RPC body. */
  call(key: string, name: string, args?: Record<string, unknown>): Promise<RpcBody>
  /** Waits until every read model has applied everything on the log. */
  settle(): Promise<void>
  /**
   * Waits until the process managers have reacted to everything (speed to lead decides on a new lead
   * just after its 201) and the read models hold it all: the log's head still for 100 ms, and applied.
   */
  quiet(): Promise<void>
}

let nextId = 1

export async function mcpApp(t: Test, options: Parameters<typeof buildApp>[1] = {}): Promise<McpTestApp> {
  const built = await buildApp(t, options)
  // Catching up works with and without the live subscription (`start: false` apps run no process managers).
  const settle = () => built.leadline.runner.catchUp()
  const post: McpTestApp['post'] = async (body, key, headers = {}) => {
    const response = await built.app.inject({
      method: 'POST',
      url: MCP,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    })
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json(), headers: response.headers, raw: response.body }
  }
  return {
    ...built,
    post,
    settle,
    async quiet() {
      for (;;) {
        const head = await built.leadline.store.headPosition()
        await new Promise((resolve) => setTimeout(resolve, 100))
        if ((await built.leadline.store.headPosition()) !== head) continue
        await settle()
        if (built.leadline.runner.appliedPosition >= head) return
      }
    },
    async call(key, name, args = {}) {
      const response = await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }, key)
      return response.body as RpcBody
    },
    async account(name = 'Acme Insurance', settings = {}) {
      const { account, token } = await built.createAccount(name, settings)
      const keys: Record<string, string> = {}
      const keyIds: Record<string, string> = {}
      for (const scopes of SCOPE_SETS) {
        const { key } = await built.leadline.accounts.createApiKey(account.accountId, scopes, scopes.join(','), operatorContext)
        keys[scopes.join(',')] = key.secret
        keyIds[scopes.join(',')] = key.id
      }
      keys.all = keys['read,write,dial'] as string
      keyIds.all = keyIds['read,write,dial'] as string
      return {
        accountId: account.accountId,
        token,
        keys: keys as ByScopeSet,
        keyIds: keyIds as ByScopeSet,
        async pushLead(fields) {
          const response = await built.app.inject({
            method: 'POST',
            url: '/api/ingest/lead',
            headers: { 'x-service-token': token, 'content-type': 'application/json' },
            payload: JSON.stringify(fields),
          })
          if (response.statusCode >= 300) throw new Error(`webhook answered ${response.statusCode}: ${response.body}`)
          await settle()
          const body = response.json() as { leadId: string; phone: string }
          return { leadId: body.leadId, phone: body.phone }
        },
      }
    },
  }
}

/** The SDK's Client, connected (initialize + initialized) over a real socket with `key`. */
export async function sdkClient(t: Pick<Test, 'teardown'>, url: string, key: string | undefined): Promise<Client> {
  const client = new Client({ name: 'leadline-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${url}${MCP}`), {
    requestInit: { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

/** Twilio's callbacks, as the actor of the commands below. */
export const CARRIER = { actor: { kind: 'carrier', id: 'twilio' } } as const

/** Runs one lead command on the account's lead with these last ten digits, as the carrier. */
export function runLeadCommand(app: McpTestApp, account: McpTestAccount, last10: string, command: LeadCommand) {
  return app.leadline.commands.handle(leadStream(account.accountId, last10), leadDecider, command, CARRIER)
}

/** The lead's newest decided call, claimed and placed with the carrier as `callId`. */
export async function placeNewestCall(app: McpTestApp, account: McpTestAccount, last10: string, callId: string): Promise<string> {
  const { state } = await app.leadline.commands.load(leadStream(account.accountId, last10), leadDecider)
  const decisionId = state.dialing.order.at(-1) as string
  await runLeadCommand(app, account, last10, { type: 'StartCallAttempt', decisionId, node: 'test' })
  await runLeadCommand(app, account, last10, { type: 'RecordCallPlaced', decisionId, callId, carrier: 'twilio' })
  return decisionId
}

/** The McpError an SDK call rejects with (anything else is rethrown). */
export async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof McpError) return error
    throw error
  }
  throw new Error('expected an McpError')
}
