/** `leadline`: the operator CLI. Each command group lives in commands/; this file only dispatches. */
import { ConfigError } from '../config/config.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { EXIT, UsageError, processIo, shown, type Io } from './cli-io.ts'
import { RemoteError } from './client/remote-error.ts'

export const USAGE = `leadline: lead intake and speed to lead

operator commands (work directly on LEADLINE_STORE, also while a server runs on it):
  leadline serve                                   start the HTTP service (npm start)
  leadline account create --name NAME [--timezone TZ]
  leadline account list
  leadline account show ACCOUNT_ID
  leadline account set ACCOUNT_ID [--timezone TZ] [--speed-to-lead on|off] [--calling-hours SPEC]
                       [--caller-id E164|none] [--country CC] [--industry NAME|none]
                       [--lead-time-guard on|off] [--cps N] [--follow-up SPEC|off] [--on-answer MODE]
                       [--amd on|off] [--voicemail TEXT] [--voicemail-url URL|none] [--voicemail-per-day N]
                       [--stale-after 24h] [--stripe-account acct_…|none] [--currency CODE]
                       [--pay-text TEMPLATE] [--allowed-countries CC,CC|default]
                       [--place-call-countries CC,CC|none] [--messaging-service MG…|off] [--google-key KEY|none]
                       [--alert-to E164|none] [--alerts new_lead,callback,replied,payment,missed_call|none]
                       [--business-hours SPEC|default] [--inbound-ring E164[,E164]|none]
                       [--inbound-ring-mode sequential|simultaneous] [--inbound-voicemail on|off]
                       [--missed-call-text TEMPLATE|off] [--appointment-confirmation on|off]
                       [--appointment-reminders 24h,1h|none]
  leadline account brief ACCOUNT_ID [--file BRIEF.json] [--business TEXT] [--question "Q? | good answer" …]
                       [--callback-windows SPEC|none] [--transfer-to E164|none] [--name NAME]
                       [--voice NAME|none] [--language en-US] [--max-minutes N] [--max-calls N]
                       [--appointment-type ID|none]                 the voice assistant's brief
  leadline number list --account ACCOUNT_ID           the carrier account's numbers, and which this account uses
  leadline number search [--area-code NXX] [--zip ZIP] [--state ST] [--near E164] [--contains DIGITS] [--limit N]
  leadline number buy --account ACCOUNT_ID --number E164 [--yes]   shows the monthly price; buys (once) with --yes
  leadline number use --account ACCOUNT_ID --number E164   claim it, point its voice/status/SMS webhooks here, caller ID
  leadline source map --account ACCOUNT_ID --source NAME FIELD=PATH [FIELD=PATH …]   a lead source's field map
  leadline source maps --account ACCOUNT_ID
  leadline source unmap --account ACCOUNT_ID --source NAME
  leadline calendar connect --account ACCOUNT_ID --caldav URL --username USER --password-stdin | --calcom --event-type ID --api-key-stdin [--calcom-url URL] | --simulated
                                                   the account's one calendar (replaces any); the password only on stdin
  leadline calendar status --account ACCOUNT_ID       the connection, its calendars and the appointment types
  leadline calendar disconnect --account ACCOUNT_ID
  leadline calendar types --account ACCOUNT_ID
  leadline calendar type add --account ACCOUNT_ID --id ID --name NAME --duration MIN [--buffer MIN] [--hours SPEC]
                       [--notice MIN] [--max-per-day N] [--calendar CALENDAR_ID]   create or replace an appointment type
  leadline calendar type remove --account ACCOUNT_ID ID
  leadline key create --account ACCOUNT_ID --scopes read[,write][,dial] [--label TEXT]
  leadline key list --account ACCOUNT_ID
  leadline key revoke KEY_ID
  leadline token rotate --account ACCOUNT_ID
  leadline source facebook connect --account ACCOUNT_ID --page-id PAGE_ID --page-token TOKEN|--page-token-file PATH
  leadline source facebook list --account ACCOUNT_ID [--stage due|fetching|received|failed] [--limit N]
  leadline source facebook disconnect --account ACCOUNT_ID --page-id PAGE_ID
  leadline source facebook retry --account ACCOUNT_ID --leadgen-id LEADGEN_ID
  leadline events subscribe --account ACCOUNT_ID --url URL [--types lead.received,call.answered,…]
  leadline events list --account ACCOUNT_ID
  leadline events unsubscribe --account ACCOUNT_ID --subscription SUB_ID
  leadline events rotate-secret --account ACCOUNT_ID --subscription SUB_ID
  leadline events deliveries --account ACCOUNT_ID [--subscription SUB_ID] [--status pending|delivered|failed|cancelled] [--limit N]
  leadline events retry --account ACCOUNT_ID --delivery N | --subscription SUB_ID | --failed
  leadline user create --account ACCOUNT_ID --email EMAIL   the account's owner, for the console at /app
  leadline user link --account ACCOUNT_ID --email EMAIL     a new one-time set-password link
  leadline operator-token                          a token for /metrics and /readyz's details (shown once)
  leadline demo [--account ACCOUNT_ID]             five leads through speed to lead on the simulated carrier, and what happened
  leadline simulate inbound-call --account ACCOUNT_ID --from +1… [--scenario owner-answers|owner-declines|no-answer|voicemail|assistant|callback]
                                                   a person calls the account's number on the simulated carrier
  leadline config [--check]                        the effective configuration and where each value came from
                                                   (./.env is read; the environment wins); --check: only check it
  leadline leads --account ACCOUNT_ID [--source S] [--vendor V] [--since ISO] [--dnc yes|no] [--limit N] [--cursor C]
  leadline leads clear-dnc --account ACCOUNT_ID --phone PHONE
  leadline migrate --to esdb://HOST:2113?tls=false [--from sqlite:PATH]   copy the embedded log into EventStoreDB
  leadline backup PATH                             a consistent copy of the embedded log, also while a server runs
  leadline restore BACKUP [--force]                put a backup in place as LEADLINE_STORE, rebuild the read models

audit (read the log, never change it; replay rebuilds read models only):
  leadline history --account ACCOUNT_ID --phone PHONE [--as-of ISO_TIME] [--json | --format csv]
  leadline audit verify [--account ACCOUNT_ID]
  leadline audit export --account ACCOUNT_ID [--output FILE] [--include-recordings]
  leadline replay [--projection NAME | --all] [--verify]

tool client (calls a running server's tool endpoint as an agent would; LEADLINE_URL, LEADLINE_API_KEY):
  leadline tool [NAME [ARGUMENTS]]                 call any tool: ARGUMENTS is one JSON object, e.g. '{"limit": 5}';
                                                   without NAME, list the tools (--json: the tool's own output)
  leadline tools
  leadline next-actions [--limit N]
  leadline lead --phone PHONE | --lead-id LEAD_ID
  leadline call --phone PHONE --name NAME [--idempotency-key KEY] [--dry-run]
  leadline dnc --phone PHONE | --lead-id LEAD_ID [--idempotency-key KEY] [--dry-run]
  leadline pay --phone PHONE | --lead-id LEAD_ID --amount-cents N --description TEXT [--idempotency-key KEY] [--dry-run]
  leadline text --phone PHONE | --lead-id LEAD_ID --body TEXT [--idempotency-key KEY] [--dry-run]
  leadline calls [--phone PHONE | --lead-id LEAD_ID] [--limit N] [--cursor CURSOR]
  leadline call-info --call-id CALL_ID
  leadline note --phone PHONE | --lead-id LEAD_ID --text TEXT [--idempotency-key KEY] [--dry-run]
  leadline edit --phone PHONE | --lead-id LEAD_ID [--name NAME] [--first-name NAME] [--last-name NAME] [--email EMAIL]
          [--state STATE] [--custom-fields JSON] [--idempotency-key KEY] [--dry-run]
  leadline callback --phone PHONE | --lead-id LEAD_ID --callback-at ISO_TIME [--idempotency-key KEY] [--dry-run]
  leadline pause --phone PHONE | --lead-id LEAD_ID [--idempotency-key KEY] [--dry-run]
  leadline resume --phone PHONE | --lead-id LEAD_ID [--idempotency-key KEY] [--dry-run]

every command takes --json for machine-readable output.
exit codes: 0 done, 1 failed, 2 bad input (nothing changed); tool client: 3 API key missing, invalid or
revoked, 4 key lacks the scope, 5 invalid arguments, 6 the tool ran and failed, 7 rate limited. docs: docs/cli.md`

type Command = (args: string[], io: Io) => Promise<void>

/**
 * The usage of one command: its lines of USAGE (with their continuation lines) and the footer.
 * `leadline leads --help` and `leadline help leads` print it; null for a name USAGE does not have.
 */
export function commandUsage(name: string): string | null {
  const lines: string[] = []
  let taking = false
  for (const line of USAGE.split('\n')) {
    if (line.startsWith('  leadline ')) taking = line.startsWith(`  leadline ${name} `) || line.trimEnd() === `  leadline ${name}`
    else if (!line.startsWith('          ')) taking = false
    if (taking) lines.push(line)
  }
  if (lines.length === 0) return null
  const footer = USAGE.slice(USAGE.indexOf('every command takes --json'))
  return ['usage:', ...lines, '', footer].join('\n')
}

const wantsHelp = (args: readonly string[]): boolean => args.includes('--help') || args.includes('-h')

// Each command's module is loaded when it runs, so `leadline --help` or a tool-client command does
// not load the server, the SDKs and the stores it never uses (start-up time is most of a CLI call).
const client = () => import('./client/client.command.ts')
export const COMMANDS: Readonly<Record<string, Command>> = {
  serve: async (args, io) => (await import('./commands/serve.command.ts')).serveCommand(args, io),
  account: async (args, io) => (await import('./commands/account.command.ts')).accountCommand(args, io),
  key: async (args, io) => (await import('./commands/key.command.ts')).keyCommand(args, io),
  token: async (args, io) => (await import('./commands/token.command.ts')).tokenCommand(args, io),
  number: async (args, io) => (await import('./commands/number.command.ts')).numberCommand(args, io),
  source: async (args, io) => (await import('./commands/source.command.ts')).sourceCommand(args, io),
  calendar: async (args, io) => (await import('./commands/calendar.command.ts')).calendarCommand(args, io),
  events: async (args, io) => (await import('./commands/events.command.ts')).eventsCommand(args, io),
  user: async (args, io) => (await import('./commands/user.command.ts')).userCommand(args, io),
  demo: async (args, io) => (await import('./commands/demo.command.ts')).demoCommand(args, io),
  simulate: async (args, io) => (await import('./commands/simulate.command.ts')).simulateCommand(args, io),
  config: async (args, io) => (await import('./commands/config.command.ts')).configCommand(args, io),
  'operator-token': async (args, io) => (await import('./commands/operator-token.command.ts')).operatorTokenCommand(args, io),
  leads: async (args, io) => (await import('./commands/leads.command.ts')).leadsCommand(args, io),
  tool: async (args, io) => (await client()).toolCommand(args, io),
  tools: async (args, io) => (await client()).toolsCommand(args, io),
  'next-actions': async (args, io) => (await client()).nextActionsCommand(args, io),
  lead: async (args, io) => (await client()).leadCommand(args, io),
  call: async (args, io) => (await client()).callCommand(args, io),
  dnc: async (args, io) => (await client()).dncCommand(args, io),
  pay: async (args, io) => (await client()).payCommand(args, io),
  text: async (args, io) => (await client()).textCommand(args, io),
  calls: async (args, io) => (await client()).callsCommand(args, io),
  'call-info': async (args, io) => (await client()).callInfoCommand(args, io),
  note: async (args, io) => (await client()).noteCommand(args, io),
  edit: async (args, io) => (await client()).editCommand(args, io),
  callback: async (args, io) => (await client()).callbackCommand(args, io),
  pause: async (args, io) => (await client()).pauseCommand(args, io),
  resume: async (args, io) => (await client()).resumeCommand(args, io),
  history: async (args, io) => (await import('./commands/history.command.ts')).historyCommand(args, io),
  audit: async (args, io) => (await import('./commands/audit.command.ts')).auditCommand(args, io),
  replay: async (args, io) => (await import('./commands/replay.command.ts')).replayCommand(args, io),
  backup: async (args, io) => (await import('./commands/backup.command.ts')).backupCommand(args, io),
  restore: async (args, io) => (await import('./commands/backup.command.ts')).restoreCommand(args, io),
  // Looked up when it runs, so the copy is audited whenever this build has `leadline audit`.
  migrate: async (args, io) => (await import('./commands/migrate.command.ts')).migrateCommand(args, io, { audit: COMMANDS.audit }),
}

export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined || name === '--help' || name === '-h' || (name === 'help' && args.length === 0)) {
    io.out(USAGE)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  const topic = name === 'help' ? (args[0] as string) : name
  const command = COMMANDS[topic]
  if (!command) {
    io.err(`leadline: unknown command "${shown(topic)}" (leadline help lists them)`)
    return EXIT.usage
  }
  if (name === 'help' || wantsHelp(args)) {
    io.out(commandUsage(topic) as string)
    return EXIT.ok
  }
  try {
    await command(args, io)
    return EXIT.ok
  } catch (error) {
    if (error instanceof RemoteError) {
      io.err(`leadline: ${shown(error.message)}`)
      return error.exitCode
    }
    if (error instanceof ConfigError) {
      // Its problems are one a line, by design; each line is still shown() (the environment is outside text too).
      io.err(`leadline: ${error.message.split('\n').map((line) => shown(line)).join('\n')}`)
      return EXIT.usage
    }
    if (error instanceof UsageError || error instanceof DomainError) {
      io.err(`leadline: ${shown(error.message)}`)
      return EXIT.usage
    }
    io.err(`leadline: ${shown((error as Error).message)}`)
    return EXIT.failed
  }
}
