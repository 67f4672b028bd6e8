/**
 * What the fault tests share: an account set up to call and to take payments, requests over a real
 * socket (webhook, tool endpoint), and the CLI's own checks of a log (`audit verify`, `replay --verify`).
 */
import path from 'node:path'
import { openLeadline } from '../../src/leadline.ts'
import { operatorContext } from '../helpers/build-app.ts'
import { runLeadlineInProcess } from '../helpers/cli.ts'

export const CALLER_ID = '+13125550100'
/** Calls at once, whatever the time: the fault tests are about faults, not calling hours. */
export const DIALING_SETTINGS = { speedToLead: true, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callerId: CALLER_ID } as const

export interface StoreFiles {
  readonly store: string
  readonly viewsPath: string
}

export function filesIn(dir: string): StoreFiles {
  return { store: `sqlite:${path.join(dir, 'leadline.db')}`, viewsPath: path.join(dir, 'leadline.views.db') }
}

/** The environment of a child `leadline serve` on these files (rate limits off: the load is ours). */
export function serverEnv(files: StoreFiles, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { LEADLINE_STORE: files.store, LEADLINE_VIEWS: files.viewsPath, LOG_LEVEL: 'warn', LEADLINE_WEBHOOK_RATE: 'off', ...extra }
}

export interface SetUpAccount {
  readonly accountId: string
  readonly token: string
  /** One key with every scope per tool-calling worker: the endpoint limits each key's rate. */
  readonly keys: readonly string[]
}

/** Creates an account (and keys) on the files through the real services, then closes them. */
export async function setUpAccount(files: StoreFiles, settings: Record<string, unknown>, keyCount = 1): Promise<SetUpAccount> {
  const leadline = await openLeadline({ store: files.store, viewsPath: files.viewsPath, env: {} })
  try {
    const { account, webhookToken } = await leadline.accounts.create('Fault Co', settings, operatorContext)
    const keys: string[] = []
    for (let i = 0; i < keyCount; i++) {
      const { key } = await leadline.accounts.createApiKey(account.accountId, ['read', 'write', 'dial'], `worker ${i}`, operatorContext)
      keys.push(key.secret)
    }
    return { accountId: account.accountId, token: webhookToken.secret, keys }
  } finally {
    await leadline.close()
  }
}

export interface Answer {
  readonly status: number
  readonly body: any
  readonly headers: Headers
}

export async function postLead(url: string, token: string, fields: Record<string, unknown>, signal?: AbortSignal): Promise<Answer> {
  const response = await fetch(`${url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'x-service-token': token, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
    ...(signal ? { signal } : {}),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers }
}

let rpcId = 1

export interface ToolAnswer {
  /** The tool's own output (parsed), when it succeeded. */
  readonly result?: any
  readonly error?: { code: number; message: string; data?: { code?: string; [k: string]: unknown } }
}

export async function callTool(url: string, key: string, name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolAnswer> {
  const response = await fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name, arguments: args } }),
    ...(signal ? { signal } : {}),
  })
  const body = (await response.json()) as { result?: { content: Array<{ text: string }>; isError?: boolean }; error?: ToolAnswer['error'] }
  if (body.error) return { error: body.error }
  return { result: JSON.parse(body.result?.content[0]?.text ?? 'null') }
}

/** `leadline audit verify` and `leadline replay --verify` on the files: both must exit 0. */
export async function verifyLog(files: StoreFiles): Promise<{ audit: { code: number; out: string }; replay: { code: number; out: string } }> {
  const env = { LEADLINE_STORE: files.store, LEADLINE_VIEWS: files.viewsPath }
  const audit = await runLeadlineInProcess(['audit', 'verify'], env)
  const replay = await runLeadlineInProcess(['replay', '--verify'], env)
  return { audit: { code: audit.code, out: audit.stdout + audit.stderr }, replay: { code: replay.code, out: replay.stdout + replay.stderr } }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Polls `check` until it is true or `timeoutMs` passes; answers whether it became true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 30_000, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await sleep(everyMs)
  }
}
