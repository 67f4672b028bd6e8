/**
 * The load generator of the benchmarks: wrk (Debian's package, written in C) when it is installed,
 * autocannon otherwise. On two cores the load generator shares the machine with the server it
 * measures, and autocannon (JavaScript) takes about as much CPU per request as a bare fastify
 * route does to answer it, so it halves what any server here can show; wrk takes a fraction of
 * that. Every result says which generator produced it: figures from the two are not comparable.
 *
 * A load is described as a request pattern, so that both generators send the same requests:
 * `{n}` in the body or a header is the request's number (`first` + k, or `first` + k mod `cycle`,
 * k counting requests from 0 across all connections) and `{pick}` is `picks[k mod picks.length]`.
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface RequestPattern {
  readonly method?: 'POST' | 'GET'
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly first?: number
  readonly cycle?: number
  readonly picks?: readonly string[]
}

export interface WrkResult {
  readonly requests: number
  readonly seconds: number
  /**
   * Latency percentiles and the longest, in milliseconds (fractions kept). wrk corrects them for
   * coordinated omission: a response that took k times the connections' usual interval counts as
   * the k responses an open stream of requests would have had waiting meanwhile, so one stall of
   * the server (or of its disk's fsync) weighs on the p99 as it would on real senders.
   */
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  /** Responses with a status of 400 or more (wrk counts 3xx as fine too). */
  readonly non2xx: number
  readonly errors: number
  /** Responses whose body starts with `countBodyPrefix`. */
  readonly counted: number
}

let wrkPath: string | null | undefined
/** The wrk binary, or null when it is not installed (the benchmarks then use autocannon). */
export function findWrk(): string | null {
  if (wrkPath !== undefined) return wrkPath
  if (process.env.BENCH_LOAD_GENERATOR === 'autocannon') return (wrkPath = null)
  try {
    wrkPath = execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || null
  } catch {
    wrkPath = null
  }
  return wrkPath
}

const lua = (text: string) => JSON.stringify(text) // a JSON string is a valid Lua string literal for these texts

/** The Lua script for one pattern: each of wrk's threads numbers its requests k = thread, thread + T, … */
function script(pattern: RequestPattern, threads: number, perThread: number, countBodyPrefix: string | undefined): string {
  const headers = Object.entries(pattern.headers).map(([name, value]) => `[${lua(name)}] = ${lua(value)}`).join(', ')
  const picks = (pattern.picks ?? []).map(lua).join(', ')
  return `
local T = ${threads}
local FIRST = ${pattern.first ?? 0}
local CYCLE = ${pattern.cycle ?? 0}
local PER_THREAD = ${perThread}
local PREFIX = ${countBodyPrefix === undefined ? 'nil' : lua(countBodyPrefix)}
local METHOD = ${lua(pattern.method ?? 'POST')}
local BODY = ${lua(pattern.body)}
local HEADERS = { ${headers} }
local PICKS = { ${picks} }
local HAS_PICK = #PICKS > 0
local threads = {}
local nextId = 0

function setup(thread)
  thread:set("tid", nextId)
  nextId = nextId + 1
  table.insert(threads, thread)
end

function init(args)
  k = tid
  seen = 0
  counted = 0
end

local function fill(text, n, pick)
  if string.find(text, "{", 1, true) == nil then return text end
  local out = string.gsub(text, "{n}", n)
  if pick ~= nil then out = string.gsub(out, "{pick}", function() return pick end) end
  return out
end

function request()
  local n = CYCLE > 0 and (FIRST + k % CYCLE) or (FIRST + k)
  local pick = HAS_PICK and PICKS[(k % #PICKS) + 1] or nil
  k = k + T
  local headers = {}
  for name, value in pairs(HEADERS) do headers[name] = fill(value, n, pick) end
  return wrk.format(METHOD, nil, headers, fill(BODY, n, pick))
end

function response(status, headers, body)
  seen = seen + 1
  if PREFIX ~= nil and string.sub(body, 1, #PREFIX) == PREFIX then counted = counted + 1 end
  if PER_THREAD > 0 and seen == PER_THREAD then
    -- wrk's main thread sleeps out the whole duration; the driver interrupts it once every thread is done.
    io.write("WRK-THREAD-DONE\\n")
    io.flush()
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("counted") end
  local e = summary.errors
  io.write(string.format('\\nWRK-RESULT {"requests":%d,"micros":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d,"non2xx":%d,"errors":%d,"counted":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, e.status, e.connect + e.read + e.write + e.timeout, total))
end
`
}

/**
 * Runs wrk against `url`: for `seconds`, or until `amount` responses have come back. With
 * `countBodyPrefix`, counts the answers whose body starts with it (for example JSON-RPC errors).
 */
export async function runWrk(options: {
  url: string
  connections: number
  pattern: RequestPattern
  seconds?: number
  amount?: number
  countBodyPrefix?: string
}): Promise<WrkResult> {
  const wrk = findWrk()
  if (!wrk) throw new Error('wrk is not installed')
  const threads = 2
  const perThread = options.amount ? Math.ceil(options.amount / threads) : 0
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-wrk-'))
  const file = path.join(dir, 'pattern.lua')
  fs.writeFileSync(file, script(options.pattern, threads, perThread, options.countBodyPrefix))
  const seconds = options.amount ? 24 * 3600 : (options.seconds ?? 10)
  const args = ['-t', String(threads), '-c', String(options.connections), '-d', `${seconds}s`, '--timeout', '10s', '-s', file, options.url]
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(wrk, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let text = ''
    let interrupted = false
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8')
      // With an amount, each thread says when it has its answers; SIGINT then ends wrk's sleep, and it reports.
      if (perThread > 0 && !interrupted && text.split('WRK-THREAD-DONE').length - 1 >= threads) {
        interrupted = true
        child.kill('SIGINT')
      }
    })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))))
  }).finally(() => fs.rmSync(dir, { recursive: true, force: true }))
  const line = /WRK-RESULT (\{.*\})/.exec(output)?.[1]
  if (!line) throw new Error(`wrk printed no result: ${output}`)
  const r = JSON.parse(line) as { requests: number; micros: number; p50: number; p90: number; p99: number; max: number; non2xx: number; errors: number; counted: number }
  return {
    requests: r.requests,
    seconds: r.micros / 1e6,
    p50: r.p50 / 1000,
    p90: r.p90 / 1000,
    p99: r.p99 / 1000,
    max: r.max / 1000,
    non2xx: r.non2xx,
    errors: r.errors,
    counted: r.counted,
  }
}

/** The pattern's k-th request, as the Lua script above makes it (for autocannon, which bench-kit drives in JavaScript). */
export function patternRequest(pattern: RequestPattern, k: number): { headers: Record<string, string>; body: string } {
  const n = String(pattern.cycle ? (pattern.first ?? 0) + (k % pattern.cycle) : (pattern.first ?? 0) + k)
  const pick = pattern.picks && pattern.picks.length > 0 ? (pattern.picks[k % pattern.picks.length] as string) : undefined
  const fill = (text: string) => {
    const out = text.replaceAll('{n}', n)
    return pick === undefined ? out : out.replaceAll('{pick}', pick)
  }
  return { headers: Object.fromEntries(Object.entries(pattern.headers).map(([name, value]) => [name, fill(value)])), body: fill(pattern.body) }
}
