/** Shared by the benchmarks: child servers, load runs (wrk or autocannon), medians, and RSS of a child process. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { findWrk, patternRequest, runWrk, type RequestPattern } from './wrk-driver.ts'
import { issueOperatorToken } from '../src/http/operator/operator-token.ts'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const START_SCRIPT = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
/** The node flags `npm start` runs the server with (its heap bounds), so a benchmark measures the server as deployed. */
const START_FLAGS = START_SCRIPT.split(/\s+/).filter((word) => word.startsWith('--'))
/** The built entry `npm start` runs (dist/src/cli/bin.js): plain JavaScript, no TypeScript loader. */
const START_ENTRY = START_SCRIPT.split(/\s+/).find((word) => word.endsWith('.js')) as string

let built = false
/** `npm run build`, once per benchmark process, so the server measured is the sources as they are now. */
function buildOnce(): void {
  if (built) return
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' })
  built = true
}

export interface Served {
  readonly url: string
  readonly child: ChildProcess
  stop(): Promise<void>
}

/**
 * Starts a server and resolves when /healthz answers. Leadline (`bin/leadline.js` in `args`) runs as
 * `npm start` runs it: built, with its flags; any other script runs through tsx.
 */
export async function serveChild(args: string[], env: NodeJS.ProcessEnv, port: number): Promise<Served> {
  // BENCH_PROFILE_DIR=dir writes a V8 CPU profile of each served process there (open in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []
  const leadline = args.indexOf('bin/leadline.js')
  if (leadline >= 0) buildOnce()
  const command = leadline >= 0 ? [...START_FLAGS, ...args.slice(0, leadline), START_ENTRY, ...args.slice(leadline + 1)] : ['--import', 'tsx', ...args]
  const child = spawn(process.execPath, [...profile, ...command], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  // A benchmark that fails part-way must not leave its servers holding the ports for the next one.
  const orphaned = (): void => void child.kill('SIGKILL')
  process.once('exit', orphaned)
  child.once('exit', () => process.off('exit', orphaned))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited early`)
    try {
      const r = await fetch(`${url}/healthz`)
      if (r.status < 500) break
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

export interface LoadResult {
  /** The load generator that measured it: figures from wrk and autocannon are not comparable. */
  readonly generator: 'wrk' | 'autocannon'
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  /** The longest response (of all runs, in a median of runs). */
  readonly max: number
  readonly non2xx: number
  readonly errors: number
  readonly total: number
  /** Answers whose body began with the load's `countBodyPrefix`. */
  readonly counted: number
}

/**
 * Sends `pattern` (see wrk-driver.ts) to `url` for `durationSeconds`, or until `amount` answers have
 * come back: with wrk when it is installed, else autocannon. `generator` says which.
 */
export async function load(options: {
  url: string
  connections: number
  durationSeconds?: number
  amount?: number
  pattern: RequestPattern
  countBodyPrefix?: string
}): Promise<LoadResult> {
  if (findWrk()) {
    const r = await runWrk({
      url: options.url, connections: options.connections, pattern: options.pattern,
      ...(options.amount ? { amount: options.amount } : { seconds: options.durationSeconds ?? 10 }),
      ...(options.countBodyPrefix ? { countBodyPrefix: options.countBodyPrefix } : {}),
    })
    return {
      generator: 'wrk', requestsPerSecond: r.requests / r.seconds, p50: r.p50, p90: r.p90, p99: r.p99, max: r.max, non2xx: r.non2xx, errors: r.errors, total: r.requests, counted: r.counted,
    }
  }
  let k = 0
  let counted = 0
  const result = await autocannon({
    url: options.url,
    method: options.pattern.method ?? 'POST',
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds ?? 10 }),
    requests: [
      {
        setupRequest: (request) => ({ ...request, ...patternRequest(options.pattern, k++) }),
        onResponse: (_status, body) => {
          if (options.countBodyPrefix !== undefined && body.startsWith(options.countBodyPrefix)) counted++
        },
      },
    ],
  })
  return {
    generator: 'autocannon',
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
    counted,
  }
}

/**
 * New leads for the webhook: phone 2 followed by nine digits, numbered from `first` (no two runs send the same person).
 * Start `first` where the phones stay valid North American numbers (exchange 2-9: 125_000_000 gives 212-500-0000
 * onwards), or every lead carries a phone_not_valid warning that real traffic does not.
 */
export function newLeadsPattern(headers: Record<string, string>, first: number): RequestPattern {
  return { headers, first, body: '{"name":"Bench Lead","phone":"2{n}","email":"lead@example.com","source":"bench"}' }
}

/** People the webhook is sent again and again: `size` of them, phone 3 followed by `first`, `first` + 1, … */
export interface RepeatPool {
  readonly first: number
  readonly size: number
}

/**
 * Repeats of people seen seconds ago (332-500-0000 on): fewer than the lead states a server keeps in
 * memory (2,000), so after the first pass every repeat finds its lead's state there.
 */
export const REPEAT_POOL: RepeatPool = { first: 325_000_000, size: 1000 }

/**
 * Repeats of people seen long ago (333-500-0000 on): far more than the server keeps in memory, as a
 * repeat hours later (a second form, a lead-ads retry, a vendor re-sending its file) is. Each needs
 * its stream read. 30,000 people: a 10 s run at 50 connections repeats each about once.
 */
export const COLD_REPEAT_POOL: RepeatPool = { first: 335_000_000, size: 30_000 }

/** Repeats: the pool's people in turn, each repeat changing the vendor (a real update, not only a touch). */
export function repeatLeadsPattern(headers: Record<string, string>, pool: RepeatPool = REPEAT_POOL): RequestPattern {
  return {
    headers, first: pool.first, cycle: pool.size, picks: ['v0', 'v1', 'v2', 'v3'],
    body: '{"name":"Bench Lead","phone":"3{n}","source":"bench","vendor":"{pick}"}',
  }
}

/** Sends each person of the pool once (50 at a time), so that repeatLeadsPattern only updates. */
export async function seedRepeatPool(url: string, headers: Record<string, string>, pool: RepeatPool = REPEAT_POOL): Promise<void> {
  let next = 0
  const sender = async (): Promise<void> => {
    for (let i = next++; i < pool.size; i = next++) {
      const response = await fetch(`${url}/api/ingest/lead`, { method: 'POST', headers, body: JSON.stringify({ phone: `3${pool.first + i}` }) })
      if (response.status !== 201) throw new Error(`seeding the repeat pool: ${response.status} ${await response.text()}`)
    }
  }
  await Promise.all(Array.from({ length: 50 }, sender))
}

/** The nearest-rank percentile of values sorted ascending (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export function medianResult(results: LoadResult[]): LoadResult {
  return {
    generator: results[0]?.generator ?? 'autocannon',
    requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
    p50: median(results.map((r) => r.p50)),
    p90: median(results.map((r) => r.p90)),
    p99: median(results.map((r) => r.p99)),
    max: Math.max(...results.map((r) => r.max)),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    total: results.reduce((n, r) => n + r.total, 0),
    counted: results.reduce((n, r) => n + r.counted, 0),
  }
}

/** CPU time a process (all its threads) has used so far, in microseconds (Linux /proc). */
export function cpuMicros(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime, in clock ticks of 10 ms
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** utime+stime (clock ticks of 10 ms) of every thread of a process, from /proc. */
export function threadTimes(pid: number): Map<string, { name: string; ticks: number }> {
  const times = new Map<string, { name: string; ticks: number }>()
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      times.set(tid, { name, ticks: Number(fields[11]) + Number(fields[12]) })
    } catch {
      // the thread ended meanwhile
    }
  }
  return times
}

/** CPU time per unit of work, by thread ("name#tid" → µs), between two `threadTimes` readings. */
export function threadMicrosPer(before: Map<string, { name: string; ticks: number }>, after: Map<string, { name: string; ticks: number }>, units: number): Record<string, number> {
  const per: Record<string, number> = {}
  for (const [tid, { name, ticks }] of after) {
    const used = ticks - (before.get(tid)?.ticks ?? 0)
    if (used > 0) per[`${name}#${tid}`] = Math.round((used * 10_000) / units)
  }
  return per
}

/** The 1-minute load average, rounded: every measurement on a shared machine should carry it. */
export function load1(): number {
  return Math.round((os.loadavg()[0] ?? 0) * 100) / 100
}

/** Resident set size of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  return statusMb(pid, 'VmRSS')
}

/** The highest resident set size the process has had since it started, in MB (Linux /proc). */
export function peakRssMb(pid: number): number {
  return statusMb(pid, 'VmHWM')
}

/** Where the resident set is, in MB (Linux /proc): private memory, mapped files, shared memory (SQLite's WAL index). */
export function rssParts(pid: number): { anonymous: number; file: number; shared: number } {
  return { anonymous: statusMb(pid, 'RssAnon'), file: statusMb(pid, 'RssFile'), shared: statusMb(pid, 'RssShmem') }
}

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile' | 'RssShmem'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return Math.round(kb / 1024)
}

/** An operator token for a benchmarked server: pass `env` to it, send `headers` to /metrics. */
export function operatorAccessForBench(): { env: { LEADLINE_OPERATOR_TOKEN_HASH: string }; headers: { authorization: string } } {
  const { token, hash } = issueOperatorToken()
  return { env: { LEADLINE_OPERATOR_TOKEN_HASH: hash }, headers: { authorization: `Bearer ${token}` } }
}

/** One scrape of a server's /metrics (Prometheus text), as `name{labels}` → value. */
export async function scrapeMetrics(url: string, headers: Record<string, string>): Promise<Map<string, number>> {
  const response = await fetch(`${url}/metrics`, { headers })
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`)
  const samples = new Map<string, number>()
  for (const line of (await response.text()).split('\n')) {
    const match = /^(\S+) (\S+)$/.exec(line)
    if (match && !line.startsWith('#')) samples.set(match[1] as string, Number(match[2]))
  }
  return samples
}

/** A receiver of outbound events on 127.0.0.1 that answers `204` and counts what it got. */
export async function startCountingReceiver(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      count++
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, count: () => count, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
