/**
 * The tool client (spec §4.2: "a command-line client exists as a wrapper over exactly these calls"):
 * `leadline tool NAME '{…}'` calls any tool the server lists, and `tools | next-actions | lead |
 * call | dnc | pay | text` are shorthands for the tools in TOOL_OF_COMMAND, their flags named after the
 * tool's arguments (argumentFlag). They call a running server's tool endpoint with LEADLINE_API_KEY,
 * exactly as an agent would. Readable output by default, `--json` for the tool's own output.
 */
import { randomUUID } from 'node:crypto'
import { json, listing, parse, required, shown, table, UsageError, type Io } from '../cli-io.ts'
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js'
import { outline } from './outline.ts'
import type { Remote, ToolResult } from './remote.ts'
import { RemoteError } from './remote-error.ts'

/** Runs a remote command; with --json, a failure is also printed as `{"error": …}` on stdout. */
async function remote(io: Io, asJson: boolean | undefined, use: (remote: Remote) => Promise<void>): Promise<void> {
  try {
    // The MCP SDK is loaded only by the commands that use it: the operator commands start faster without it.
    const { withRemote } = await import('./remote.ts')
    await withRemote(io, use)
  } catch (error) {
    if (asJson && error instanceof RemoteError && error.rpcError) io.out(json({ error: error.rpcError }))
    throw error
  }
}

/**
 * The key a write command sends: the caller's, or a new one printed so a retry can reuse it. A dry
 * run changes nothing, so there is nothing to retry safely: its key is not printed.
 */
function idempotencyKey(given: string | undefined, io: Io, dryRun: boolean): string {
  if (given !== undefined) return given
  const key = `cli-${randomUUID()}`
  if (!dryRun) io.err(`idempotency key: ${key} (to retry this exact call safely, repeat it with --idempotency-key ${key})`)
  return key
}

/** The tool each shorthand command calls; test/cli/client-derived.test.ts holds them to the registry. */
export const TOOL_OF_COMMAND = {
  'next-actions': 'get_next_actions',
  lead: 'get_lead',
  call: 'place_call',
  dnc: 'mark_do_not_call',
  pay: 'request_payment',
  text: 'send_sms',
  calls: 'list_calls',
  'call-info': 'get_call',
  note: 'add_note',
  edit: 'update_lead',
  callback: 'schedule_callback',
  pause: 'pause_follow_up',
  resume: 'resume_follow_up',
} as const

/** The flag that sets a tool argument: `lead_id` is `--lead-id`, `amountCents` is `--amount-cents`. */
export function argumentFlag(argument: string): string {
  return `--${argument.replaceAll('_', '-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
}

/** The tool arguments among `names` that were given as flags (parsed values are keyed by flag without `--`). */
function argumentsFrom(values: Readonly<Record<string, unknown>>, names: readonly string[]): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  for (const name of names) {
    const value = values[argumentFlag(name).slice(2)]
    if (value !== undefined) args[name] = value
  }
  return args
}

function leadReference(values: { phone?: string | undefined; 'lead-id'?: string | undefined }): Record<string, unknown> {
  if ((values.phone === undefined) === (values['lead-id'] === undefined)) throw new UsageError('give --phone or --lead-id (one of them)')
  return argumentsFrom(values, ['phone', 'lead_id'])
}

/** A text's own lines (the opt-out line is one), each made safe to print, under `text: `. */
function textLines(body: unknown): string {
  return String(body).split('\n').map((line) => cell(line)).join('\n      ')
}

function replayNote(result: ToolResult): string {
  return result.replayed ? '\n(the recorded result of an earlier call with this idempotency key: nothing was done again)' : ''
}

const firstSentence = (text: string) => /^[^.]*\.?/.exec(text)?.[0] ?? text
// Whatever the server answers may carry lead data as a webhook sent it: shown on one line, controls made inert.
const cell = shown

function printTools(tools: ListToolsResult['tools'], io: Io, asJson: boolean | undefined): void {
  if (asJson) return io.out(json({ tools }))
  io.out(
    table(
      ['tool', 'scope', 'what it does'],
      tools.map((t) => [t.name, (t._meta as Record<string, unknown> | undefined)?.['leadline/scope'], firstSentence(t.description ?? '')]),
    ),
  )
}

export async function toolsCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { json: { type: 'boolean' } })
  await remote(io, values.json, async (r) => printTools((await r.listTools()).tools, io, values.json))
}

/** The ARGUMENTS of `leadline tool NAME ARGUMENTS`: one JSON object, checked before anything is sent. */
function toolArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`the arguments are not JSON (${(error as Error).message}): give one object, e.g. '{"limit": 5}'`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`the arguments must be a JSON object, e.g. '{"limit": 5}'`)
  return parsed as Record<string, unknown>
}

/**
 * `leadline tool`: the server's tools; `leadline tool NAME [ARGUMENTS]`: calls that tool, whichever
 * it is (also one added after this CLI was built), with the arguments exactly as given.
 */
export async function toolCommand(args: string[], io: Io): Promise<void> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } }, true)
  const [name, text, ...extra] = positionals
  if (extra.length > 0) throw new UsageError(`give the tool's arguments as one JSON object (quote it): leadline tool ${shown(name)} '{…}'`)
  if (name === undefined) return remote(io, values.json, async (r) => printTools((await r.listTools()).tools, io, values.json))
  const toolArgs = toolArguments(text)
  await remote(io, values.json, async (r) => {
    const result = await r.call(name, toolArgs)
    io.out(values.json ? json(result.output) : outline(result.output) + replayNote(result))
  })
}

export async function nextActionsCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { limit: { type: 'string' }, json: { type: 'boolean' } })
  const limit = values.limit === undefined ? undefined : Number(values.limit)
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError('--limit takes a whole number from 1')
  await remote(io, values.json, async (r) => {
    const { output } = await r.call(TOOL_OF_COMMAND['next-actions'], limit === undefined ? {} : { limit })
    if (values.json) return io.out(json(output))
    const stale = output.stale_leads as Array<Record<string, unknown>>
    io.out(
      [
        cell(output.summary),
        ...(stale.length === 0
          ? []
          : [
              '',
              table(
                ['lead', 'name', 'phone', 'why', 'attempts', 'last touch', 'next allowed', 'suggested action'],
                stale.map((l) => [l.lead_id, l.name, l.phone, l.why, l.attempts, l.last_touch, l.next_allowed_at ?? 'never', l.suggested_action]),
              ),
            ]),
      ].join('\n'),
    )
  })
}

export async function leadCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { phone: { type: 'string' }, 'lead-id': { type: 'string' }, json: { type: 'boolean' } })
  const reference = leadReference(values)
  await remote(io, values.json, async (r) => {
    const { output } = await r.call(TOOL_OF_COMMAND.lead, reference)
    if (values.json) return io.out(json(output))
    const lead = output.lead as Record<string, unknown>
    const rows = Object.entries(lead)
      .filter(([, v]) => v !== null && !(typeof v === 'object' && Object.keys(v as object).length === 0))
      .map(([k, v]) => [k.replaceAll('_', ' '), v] as const)
    io.out(listing(rows))
  })
}

export async function callCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, {
    phone: { type: 'string' },
    name: { type: 'string' },
    'idempotency-key': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  if (values.phone === undefined || values.name === undefined) throw new UsageError('call needs --phone and --name')
  const dryRun = values['dry-run'] === true
  const key = idempotencyKey(values['idempotency-key'], io, dryRun)
  await remote(io, values.json, async (r) => {
    const result = await r.call(TOOL_OF_COMMAND.call, { ...argumentsFrom(values, ['phone', 'name']), idempotency_key: key, dry_run: dryRun })
    const out = result.output
    if (values.json) return io.out(json(out))
    const check = out.check as Record<string, unknown>
    const line =
      out.status === 'placed'
        ? `call ${cell(out.call_id)} placed to ${cell(out.to)} from ${cell(out.from)} (lead ${cell(out.lead_id)}, ${cell(out.carrier)})`
        : out.status === 'would_call'
          ? `dry run: a call to ${cell(out.to)} would go out now from ${cell(out.from)}; nothing was done`
          : `dry run: no call to ${cell(out.to)} now: ${cell(check.message)}${check.rule ? ` [rule ${cell(check.rule)}]` : ''}${check.next_allowed_at ? ` (next allowed at ${cell(check.next_allowed_at)})` : ''}; nothing was done`
    io.out(line + replayNote(result))
  })
}

export async function dncCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, {
    phone: { type: 'string' },
    'lead-id': { type: 'string' },
    'idempotency-key': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  const reference = leadReference(values)
  const dryRun = values['dry-run'] === true
  const key = idempotencyKey(values['idempotency-key'], io, dryRun)
  await remote(io, values.json, async (r) => {
    const result = await r.call(TOOL_OF_COMMAND.dnc, { ...reference, idempotency_key: key, dry_run: dryRun })
    if (values.json) return io.out(json(result.output))
    io.out(cell(result.output.message) + replayNote(result))
  })
}

export async function payCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, {
    phone: { type: 'string' },
    'lead-id': { type: 'string' },
    'amount-cents': { type: 'string' },
    description: { type: 'string' },
    'idempotency-key': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  const reference = leadReference(values)
  const amountCents = Number(values['amount-cents'])
  if (values['amount-cents'] === undefined || !/^\d+$/.test(values['amount-cents']) || amountCents < 1) {
    throw new UsageError('pay needs --amount-cents, a whole number of cents such as 12500 for $125.00')
  }
  if (values.description === undefined) throw new UsageError('pay needs --description, what the customer pays for')
  const dryRun = values['dry-run'] === true
  const key = idempotencyKey(values['idempotency-key'], io, dryRun)
  await remote(io, values.json, async (r) => {
    const result = await r.call(TOOL_OF_COMMAND.pay, {
      ...reference,
      ...argumentsFrom({ ...values, 'amount-cents': amountCents }, ['amountCents', 'description']),
      idempotency_key: key,
      dry_run: dryRun,
    })
    const out = result.output
    if (values.json) return io.out(json(out))
    const simulated = out.provider === 'simulated' ? ' (simulated provider: no card is charged)' : ''
    const lines =
      out.status === 'texted'
        ? [
            `pay-link ${cell(out.request_id)} for ${cell(out.amount)} texted to ${cell(out.texted_to)} from ${cell(out.from)} (${cell(out.carrier)})${simulated}`,
            `link: ${cell(out.url)} (expires ${cell(out.expires_at)})`,
          ]
        : [
            `dry run: ${cell(out.amount)} would be asked of ${cell(out.texted_to)} from ${cell(out.from)}${out.connected_account ? `, settling into ${cell(out.connected_account)}` : ''}${simulated}; nothing was done`,
            `text: ${textLines(out.message)}`,
          ]
    io.out(lines.join('\n') + replayNote(result))
  })
}

export async function textCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, {
    phone: { type: 'string' },
    'lead-id': { type: 'string' },
    body: { type: 'string' },
    'idempotency-key': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  const reference = leadReference(values)
  if (values.body === undefined) throw new UsageError('text needs --body, what to say')
  const dryRun = values['dry-run'] === true
  const key = idempotencyKey(values['idempotency-key'], io, dryRun)
  await remote(io, values.json, async (r) => {
    const result = await r.call(TOOL_OF_COMMAND.text, { ...reference, body: values.body, idempotency_key: key, dry_run: dryRun })
    const out = result.output
    if (values.json) return io.out(json(out))
    const check = out.check as Record<string, unknown>
    const size = `${cell(out.segments)} ${out.segments === 1 ? 'segment' : 'segments'}, ${cell(out.encoding)}`
    const head =
      out.status === 'sent'
        ? `text ${cell(out.message_id)} sent to ${cell(out.to)} (lead ${cell(out.lead_id)}, ${cell(out.carrier)}, ${size})`
        : out.status === 'would_send'
          ? `dry run: a text to ${cell(out.to)} would go out now (${size}); nothing was done`
          : `dry run: no text to ${cell(out.to)} now: ${cell(check.message)}${check.rule ? ` [rule ${cell(check.rule)}]` : ''}${check.next_allowed_at ? ` (next allowed at ${cell(check.next_allowed_at)})` : ''}; nothing was done`
    io.out([head, `sender: ${cell(out.sender)}`, `text: ${textLines(out.body)}`].join('\n') + replayNote(result))
  })
}

/** A call in one line: when, to whom, why, and how it went. */
function callLine(call: Record<string, unknown>): string {
  const facts = [
    call.answered_by !== null ? `answered by ${cell(call.answered_by)}` : '',
    call.duration_seconds !== null ? `${cell(call.duration_seconds)} s` : '',
    call.voicemail !== null ? `voicemail ${cell(call.voicemail)}` : '',
    call.menu_choice !== null ? `pressed: ${cell(call.menu_choice)}` : '',
    call.callback_at !== null ? `callback ${cell(call.callback_at)}` : '',
  ].filter((fact) => fact !== '')
  return `${cell(call.decided_at)}  ${cell(call.to)}  ${cell(call.purpose)} #${cell(call.attempt)}  ${cell(call.result)}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}  ${cell(call.call_id ?? call.decision_id)}`
}

export async function callsCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { phone: { type: 'string' }, 'lead-id': { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' }, json: { type: 'boolean' } })
  if (values.phone !== undefined && values['lead-id'] !== undefined) throw new UsageError('give --phone or --lead-id, not both (or neither: the whole account)')
  const limit = values.limit === undefined ? undefined : Number(values.limit)
  if (limit !== undefined && !Number.isInteger(limit)) throw new UsageError('--limit takes a whole number of calls')
  await remote(io, values.json, async (r) => {
    const { output } = await r.call(TOOL_OF_COMMAND.calls, { ...argumentsFrom(values, ['phone', 'lead_id', 'cursor']), ...(limit !== undefined ? { limit } : {}) })
    if (values.json) return io.out(json(output))
    const calls = output.calls as Array<Record<string, unknown>>
    const lines = calls.length === 0 ? ['no calls'] : calls.map(callLine)
    if (output.next_cursor !== null) lines.push(`more: --cursor ${cell(output.next_cursor)}`)
    io.out(lines.join('\n'))
  })
}

export async function callInfoCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { 'call-id': { type: 'string' }, json: { type: 'boolean' } })
  const callId = required(values['call-id'], '--call-id')
  await remote(io, values.json, async (r) => {
    const { output } = await r.call(TOOL_OF_COMMAND['call-info'], { call_id: callId })
    if (values.json) return io.out(json(output))
    const call = output.call as Record<string, unknown>
    io.out(listing(Object.entries(call).filter(([, v]) => v !== null).map(([k, v]) => [k.replaceAll('_', ' '), v] as const)))
  })
}

/**
 * A write tool on one lead that answers with a `message`: its flags are the lead reference, the
 * tool's own (`own`, turned into arguments by `build`), --idempotency-key and --dry-run.
 */
async function leadChange<O extends NonNullable<Parameters<typeof parse>[1]>>(
  args: string[],
  io: Io,
  command: keyof typeof TOOL_OF_COMMAND,
  own: O,
  build: (values: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  const { values } = parse(args, {
    ...own,
    phone: { type: 'string' },
    'lead-id': { type: 'string' },
    'idempotency-key': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  const all = values as Record<string, unknown> & { phone?: string; 'lead-id'?: string; 'idempotency-key'?: string; 'dry-run'?: boolean; json?: boolean }
  const reference = leadReference(all)
  const own_ = build(all)
  const dryRun = all['dry-run'] === true
  const key = idempotencyKey(all['idempotency-key'], io, dryRun)
  await remote(io, all.json, async (r) => {
    const result = await r.call(TOOL_OF_COMMAND[command], { ...reference, ...own_, idempotency_key: key, dry_run: dryRun })
    if (all.json) return io.out(json(result.output))
    io.out(cell(result.output.message) + replayNote(result))
  })
}

export function noteCommand(args: string[], io: Io): Promise<void> {
  return leadChange(args, io, 'note', { text: { type: 'string' } }, (values) => ({ text: required(values.text as string | undefined, '--text') }))
}

export function callbackCommand(args: string[], io: Io): Promise<void> {
  return leadChange(args, io, 'callback', { 'callback-at': { type: 'string' } }, (values) => ({ callback_at: required(values['callback-at'] as string | undefined, '--callback-at') }))
}

export function pauseCommand(args: string[], io: Io): Promise<void> {
  return leadChange(args, io, 'pause', {}, () => ({}))
}

export function resumeCommand(args: string[], io: Io): Promise<void> {
  return leadChange(args, io, 'resume', {}, () => ({}))
}

/** `--email ''` and `--state ''` clear them; --custom-fields is a JSON object (a null value removes a field). */
export function editCommand(args: string[], io: Io): Promise<void> {
  const own = { name: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' }, email: { type: 'string' }, state: { type: 'string' }, 'custom-fields': { type: 'string' } } as const
  return leadChange(args, io, 'edit', own, (values) => {
    const edits: Record<string, unknown> = argumentsFrom(values, ['name', 'first_name', 'last_name'])
    for (const name of ['email', 'state']) if (values[name] !== undefined) edits[name] = values[name] === '' ? null : values[name]
    if (values['custom-fields'] !== undefined) edits.custom_fields = toolArguments(values['custom-fields'] as string)
    if (Object.keys(edits).length === 0) throw new UsageError('edit needs something to change: --name, --first-name, --last-name, --email, --state or --custom-fields')
    return edits
  })
}
