/**
 * What the multi-node tests share: the EventStoreDB test double in a process of its own, Leadline
 * nodes (`leadline serve`, each with its own LEADLINE_VIEWS) on it, an account made through the
 * real services, and read-only looks at a node's read models.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import type { Test } from 'tap'
import { openLeadline } from '../../src/leadline.ts'
import { openEsdbEventStore, type EsdbEventStore } from '../../src/eventstore/eventstoredb/esdb-event-store.adapter.ts'
import { BIN, ROOT, freePort, startServer, type RunningServer } from './cli.ts'
import { OPERATOR, OPERATOR_HEADERS, operatorContext } from './build-app.ts'

const LAUNCHER = fileURLToPath(new URL('../doubles/esdb/serve-esdb-double.ts', import.meta.url))

export const SILENT = { info() {}, warn() {} }

/**
 * A fresh directory of its own for the nodes' files. Not t.testdir(): that is named after the test,
 * and two runs of the suite at once (two terminals, a watcher) would share and delete it.
 */
export function scratchDir(t: Test): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'leadline-multi-node-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface DoubleProcess {
  readonly url: string
  /** Sends one command (hold, release, stats, …) and resolves with its JSON answer. */
  command(line: string): Promise<Record<string, unknown>>
  stop(): Promise<void>
}

/** Starts serve-esdb-double.ts and resolves once it prints its port. */
export async function startDoubleProcess(t: Test): Promise<DoubleProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  const answers: Array<(value: Record<string, unknown>) => void> = []
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(() => reject(new Error(`the EventStoreDB double did not start: ${stderr}`)), 120_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        const listening = /^esdb-double listening (.*)$/.exec(line)
        if (listening) {
          clearTimeout(timer)
          resolve((JSON.parse(listening[1] as string) as { url: string }).url)
        } else if (line.startsWith('{')) answers.shift()?.(JSON.parse(line) as Record<string, unknown>)
      }
    })
    child.once('exit', (code) => reject(new Error(`the EventStoreDB double exited (${String(code)}): ${stderr}`)))
  })
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  t.teardown(stop)
  return {
    url,
    command(line) {
      return new Promise((resolve) => {
        answers.push(resolve)
        child.stdin?.write(`${line}\n`)
      })
    },
    stop,
  }
}

export interface NodeOptions {
  readonly store: string
  readonly views: string
  readonly env?: NodeJS.ProcessEnv
}

/** Every node of one log seals secrets with the same key (an EventStoreDB store requires it). */
export const SECRET_KEY = Buffer.alloc(32, 7).toString('base64')

/** Starts `leadline serve` on the store with its own read models; its public URL is its own address. */
export async function startNode(t: Test, options: NodeOptions): Promise<RunningServer> {
  const port = await freePort()
  const server = await startServer(
    {
      LEADLINE_STORE: options.store,
      LEADLINE_VIEWS: options.views,
      LEADLINE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
      LEADLINE_SECRET_KEY: SECRET_KEY,
      ...options.env,
    },
    { port, timeoutMs: 120_000 },
  )
  t.teardown(async () => {
    const timer = setTimeout(() => {
      t.comment(`node ${server.url} did not stop within 15 s of SIGTERM; killing it. Its last output:\n${server.output().slice(-4000)}`)
      server.child.kill('SIGKILL')
    }, 15_000)
    await server.stop()
    clearTimeout(timer)
  })
  return server
}

export interface Polled {
  readonly at: number
  /** HTTP status, or 0 while nothing listens. */
  readonly status: number
  readonly body: { status?: string; head?: number; checkpoint?: number } | null
}

/** Spawns `leadline serve` without waiting for it, and records every /readyz answer from the first moment. */
export async function spawnNodeWatchingReadiness(
  t: Test,
  options: NodeOptions,
): Promise<{ url: string; output: () => string; answers: Polled[]; child: ChildProcess; stopPolling: () => void }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, LEADLINE_STORE: options.store, LEADLINE_VIEWS: options.views, LEADLINE_PUBLIC_URL: url, LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', LEADLINE_OPERATOR_TOKEN_HASH: OPERATOR.hash, LEADLINE_SECRET_KEY: SECRET_KEY, ...options.env },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const answers: Polled[] = []
  let polling = true
  void (async () => {
    while (polling && child.exitCode === null) {
      try {
        // With the operator token: the answers' head and checkpoint are what the tests watch.
        const response = await fetch(`${url}/readyz`, { headers: OPERATOR_HEADERS })
        answers.push({ at: Date.now(), status: response.status, body: (await response.json()) as Polled['body'] })
      } catch {
        answers.push({ at: Date.now(), status: 0, body: null })
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })()
  t.teardown(async () => {
    polling = false
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    const timer = setTimeout(() => {
      // A graceful stop that hangs is a bug worth seeing: say so, with the node's last words, and kill it.
      t.comment(`node ${url} did not stop within 15 s of SIGTERM; killing it. Its last output:\n${output.slice(-4000)}`)
      child.kill('SIGKILL')
    }, 15_000)
    await exited
    clearTimeout(timer)
  })
  return { url, output: () => output, answers, child, stopPolling: () => (polling = false) }
}

export const DIALABLE = { callerId: '+15125550100', callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, callsPerSecond: 50 }

/** Creates an account (and an API key with every scope) through the real services, on the store. */
export async function createAccount(
  store: string,
  dir: string,
  settings: Record<string, unknown>,
): Promise<{ accountId: string; token: string; apiKey: string }> {
  const leadline = await openLeadline({ store, viewsPath: path.join(dir, 'setup.views.db'), env: { LEADLINE_SIMULATED_DELAY_MS: '20', LEADLINE_SECRET_KEY: SECRET_KEY } })
  try {
    const { account, webhookToken } = await leadline.accounts.create('Many Nodes Co', settings, operatorContext)
    const { key } = await leadline.accounts.createApiKey(account.accountId, ['read', 'write', 'dial'], 'multi-node', operatorContext)
    return { accountId: account.accountId, token: webhookToken.secret, apiKey: key.secret }
  } finally {
    await leadline.close()
  }
}

/** A client of the store for looking at the log from the test. */
export function openLog(t: Test, url: string): EsdbEventStore {
  const store = openEsdbEventStore({ connectionString: url, logger: SILENT })
  t.teardown(() => store.close())
  return store
}

/** Counts rows in a node's read models (read-only; the node keeps writing). */
export function countRows(viewsFile: string, sql: string, ...params: unknown[]): number {
  const db = new Database(viewsFile, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare(sql).pluck().get(...params) as number | undefined) ?? 0
  } finally {
    db.close()
  }
}

export async function postLead(node: RunningServer, token: string, body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${node.url}/api/ingest/lead`, {
    method: 'POST',
    headers: { 'x-service-token': token, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return true
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
