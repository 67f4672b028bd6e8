/**
 * bench:appointments — `list_open_slots` against a real CalDAV server (Radicale on 127.0.0.1) whose
 * calendar holds --events events (default 500) in the month asked about, beside the raw tsdav query of
 * the same month made in the same run (issue #45's benchmark: Leadline's time beyond the raw query,
 * p99 ≤ 20 ms).
 *
 * The account, its lead, its read key, the CalDAV connection and a 60-minute appointment type are set
 * up through Leadline's own commands in this process; the tool is then called over HTTP on a server
 * started as `npm start` starts it. Each round asks both, one after the other, in turns (so a slow
 * moment of the shared machine falls on both alike): the raw query is tsdav's `fetchCalendarObjects`
 * with the month's time range (the REPORT a CalDAV client makes, its answer's events returned as
 * text), the tool is the whole JSON-RPC call (key, decision, the same REPORT, parsing the events, the
 * slots in the account's and the lead's zone). Leadline's time beyond the query is each round's
 * difference; its p99 is the figure held to the floor.
 *
 *   npm run bench:appointments [-- --events 500 --rounds 300 --runs 3]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { DateTime } from 'luxon'
import { createDAVClient } from 'tsdav'
import { loadConfig } from '../src/config/config.ts'
import { openLeadline } from '../src/leadline.ts'
import { receiveLead } from '../src/commands/receive-lead.command.ts'
import { freePort } from '../test/helpers/cli.ts'
import { startRadicale } from '../test/support/radicale.ts'
import { ownerCalendarApp } from '../test/support/radicale-calendars.ts'
import { load1, median, percentile, serveChild } from './bench-kit.ts'

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '300' },
    runs: { type: 'string', default: '3' },
  },
})
const EVENTS = Number(values.events)
const ROUNDS = Number(values.rounds)
const RUNS = Number(values.runs)
const ZONE = 'America/New_York'
const FLOOR_MS = 20

const radicale = await startRadicale()
const owner = ownerCalendarApp(radicale)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-bench-appointments-'))
const store = `sqlite:${path.join(dir, 'leadline.db')}`

// --- the owner's month: EVENTS events of 30 to 90 minutes on weekdays 08:00-18:00, from tomorrow on
const calendarId = await owner.newCalendar(ZONE)
const monthStart = DateTime.now().setZone(ZONE).plus({ days: 1 }).startOf('day')
const monthEnd = monthStart.plus({ days: 30 })
const days = Array.from({ length: 30 }, (_, i) => monthStart.plus({ days: i })).filter((d) => d.weekday <= 5)
const stamp = (d: DateTime) => d.toFormat("yyyyMMdd'T'HHmmss")
let seeded = 0
await Promise.all(Array.from({ length: 8 }, async () => {
  for (let i = seeded++; i < EVENTS; i = seeded++) {
    const day = days[i % days.length] as DateTime
    const start = day.set({ hour: 8 + ((i * 7) % 10), minute: ((i * 13) % 4) * 15 })
    const end = start.plus({ minutes: 30 + ((i * 11) % 3) * 30 })
    await owner.ownerEvent(calendarId, `owner-${i}`, [`SUMMARY:Owner event ${i}`, `DTSTART;TZID=${ZONE}:${stamp(start)}`, `DTEND;TZID=${ZONE}:${stamp(end)}`])
  }
}))

// --- Leadline's side, set up through its own commands (the secret box's key file sits beside the log)
const operator = { actor: { kind: 'operator', id: 'bench' } } as const
// Radicale listens on 127.0.0.1: a private address, which only LEADLINE_CALENDAR_ALLOW_PRIVATE lets a calendar be on.
const setup = await openLeadline({ store, viewsPath: loadConfig({ LEADLINE_STORE: store }).viewsPath, env: { ...process.env, LEADLINE_CALENDAR_ALLOW_PRIVATE: '1' } })
const { account } = await setup.accounts.create('Bench Roofing', { callerId: '+15125550100', timeZone: ZONE }, operator)
const key = (await setup.accounts.createApiKey(account.accountId, ['read'], null, operator)).key.secret
await receiveLead(setup, account, { name: 'Jane Doe', phone: '(312) 555-0142', state: 'IL' }, operator)
await setup.calendars.connect(account.accountId, { kind: 'caldav', serverUrl: radicale.url, username: radicale.username, password: radicale.password }, operator.actor)
await setup.calendars.saveType(account.accountId, { id: 'estimate', name: 'Roof estimate', durationMinutes: 60, bufferMinutes: 15, bookableHours: 'mon-fri 08:00-18:00', minimumNoticeMinutes: 0, calendarId }, operator.actor)
await setup.runner.catchUp()
await setup.close()

const port = await freePort()
const server = await serveChild(['bin/leadline.js', 'serve'], { LEADLINE_STORE: store, LEADLINE_CALENDAR_ALLOW_PRIVATE: '1' }, port)
const range = { start: monthStart.toUTC().toISO() as string, end: monthEnd.toUTC().toISO() as string }
const raw = await createDAVClient({ serverUrl: radicale.url, credentials: { username: radicale.username, password: radicale.password }, authMethod: 'Basic', defaultAccountType: 'caldav' })

let id = 0
async function tool(): Promise<{ ms: number; slots: number }> {
  const body = JSON.stringify({
    jsonrpc: '2.0', id: ++id, method: 'tools/call',
    params: { name: 'list_open_slots', arguments: { appointment_type_id: 'estimate', from: range.start, to: range.end, phone: '(312) 555-0142' } },
  })
  const started = performance.now()
  const response = await fetch(`${server.url}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body })
  const answer = (await response.json()) as { result?: { structuredContent?: { slots?: unknown[] } }; error?: unknown }
  const ms = performance.now() - started
  if (answer.result?.structuredContent?.slots === undefined) throw new Error(`list_open_slots failed: ${JSON.stringify(answer.error ?? answer)}`)
  return { ms, slots: answer.result.structuredContent.slots.length }
}

async function query(): Promise<{ ms: number; events: number }> {
  const started = performance.now()
  const objects = await raw.fetchCalendarObjects({ calendar: { url: calendarId }, timeRange: range })
  return { ms: performance.now() - started, events: objects.length }
}

interface Run { tool: { p50: number; p99: number }; raw: { p50: number; p99: number }; beyond: { p50: number; p99: number }; events: number; slots: number; load: number }
const runs: Run[] = []
try {
  for (let i = 0; i < 20; i++) await Promise.all([tool(), query()]) // warm-up: code, connections, caches
  for (let r = 0; r < RUNS; r++) {
    const ours: number[] = []
    const theirs: number[] = []
    const beyond: number[] = []
    let events = 0
    let slots = 0
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which goes first, so neither always meets a warmer server.
      let a: { ms: number; slots: number }
      let b: { ms: number; events: number }
      if (i % 2 === 0) {
        a = await tool()
        b = await query()
      } else {
        b = await query()
        a = await tool()
      }
      ours.push(a.ms)
      theirs.push(b.ms)
      beyond.push(a.ms - b.ms)
      events = b.events
      slots = a.slots
    }
    for (const list of [ours, theirs, beyond]) list.sort((x, y) => x - y)
    const run: Run = {
      tool: { p50: percentile(ours, 50), p99: percentile(ours, 99) },
      raw: { p50: percentile(theirs, 50), p99: percentile(theirs, 99) },
      beyond: { p50: percentile(beyond, 50), p99: percentile(beyond, 99) },
      events, slots, load: load1(),
    }
    runs.push(run)
    process.stdout.write(
      `run ${r + 1}: list_open_slots p50 ${run.tool.p50.toFixed(1)} ms, p99 ${run.tool.p99.toFixed(1)} ms; raw tsdav query p50 ${run.raw.p50.toFixed(1)} ms, p99 ${run.raw.p99.toFixed(1)} ms; ` +
        `Leadline beyond the query p50 ${run.beyond.p50.toFixed(1)} ms, p99 ${run.beyond.p99.toFixed(1)} ms (${events} events in the month, ${slots} slots, load ${run.load.toFixed(1)})\n`,
    )
  }
  const p99 = median(runs.map((r) => r.beyond.p99))
  process.stdout.write(
    `median of ${RUNS} runs of ${ROUNDS}: Leadline beyond the raw query p99 ${p99.toFixed(1)} ms (floor ≤ ${FLOOR_MS} ms: ${p99 <= FLOOR_MS ? 'met' : 'MISSED'}), p50 ${median(runs.map((r) => r.beyond.p50)).toFixed(1)} ms; ` +
      `list_open_slots p99 ${median(runs.map((r) => r.tool.p99)).toFixed(1)} ms, raw query p99 ${median(runs.map((r) => r.raw.p99)).toFixed(1)} ms\n`,
  )
  fs.mkdirSync(path.join('bench', 'results'), { recursive: true })
  fs.writeFileSync(path.join('bench', 'results', 'appointments.json'), `${JSON.stringify({ at: new Date().toISOString(), events: EVENTS, rounds: ROUNDS, runs }, null, 2)}\n`)
} finally {
  await server.stop()
  await radicale.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
