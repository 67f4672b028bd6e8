/** `leadline`: the operator CLI. Each command group lives in commands/; this file only dispatches. */
import { ConfigError } from '../config/config.ts'
import { DomainError } from '../domain/shared/decider.ts'
import { EXIT, UsageError, processIo, type Io } from './cli-io.ts'
import { accountCommand } from './commands/account.command.ts'
import { auditCommand } from './commands/audit.command.ts'
import { historyCommand } from './commands/history.command.ts'
import { keyCommand } from './commands/key.command.ts'
import { leadsCommand } from './commands/leads.command.ts'
import { migrateCommand } from './commands/migrate.command.ts'
import { replayCommand } from './commands/replay.command.ts'
import { serveCommand } from './commands/serve.command.ts'
import { tokenCommand } from './commands/token.command.ts'
import { callCommand, dncCommand, leadCommand, nextActionsCommand, payCommand, toolsCommand } from './client/client.command.ts'
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
                       [--stale-after 24h] [--stripe-account acct_…|none] [--currency CODE]
                       [--pay-text TEMPLATE]
  leadline key create --account ACCOUNT_ID --scopes read[,write][,dial] [--label TEXT]
  leadline key list --account ACCOUNT_ID
  leadline key revoke KEY_ID
  leadline token rotate --account ACCOUNT_ID
  leadline leads --account ACCOUNT_ID [--source S] [--vendor V] [--since ISO] [--dnc yes|no] [--limit N] [--cursor C]
  leadline leads clear-dnc --account ACCOUNT_ID --phone PHONE
  leadline migrate --to esdb://HOST:2113?tls=false [--from sqlite:PATH]   copy the embedded log into EventStoreDB

audit (read the log, never change it; replay rebuilds read models only):
  leadline history --account ACCOUNT_ID --phone PHONE [--as-of ISO_TIME] [--json | --format csv]
  leadline audit verify [--account ACCOUNT_ID]
  leadline audit export --account ACCOUNT_ID [--output FILE] [--include-recordings]
  leadline replay [--projection NAME | --all] [--verify]

tool client (calls a running server's tool endpoint as an agent would; LEADLINE_URL, LEADLINE_API_KEY):
  leadline tools
  leadline next-actions [--limit N]
  leadline lead --phone PHONE | --lead-id LEAD_ID
  leadline call --phone PHONE --name NAME [--idempotency-key KEY] [--dry-run]
  leadline dnc --phone PHONE | --lead-id LEAD_ID [--idempotency-key KEY] [--dry-run]
  leadline pay --phone PHONE | --lead-id LEAD_ID --amount-cents N --description TEXT [--idempotency-key KEY] [--dry-run]

every command takes --json for machine-readable output.
exit codes: 0 done, 1 failed, 2 bad input (nothing changed); tool client: 3 API key missing, invalid or
revoked, 4 key lacks the scope, 5 invalid arguments, 6 the tool ran and failed, 7 rate limited. docs: docs/cli.md`

const COMMANDS: Record<string, (args: string[], io: Io) => Promise<void>> = {
  serve: serveCommand,
  account: accountCommand,
  key: keyCommand,
  token: tokenCommand,
  leads: leadsCommand,
  tools: toolsCommand,
  'next-actions': nextActionsCommand,
  lead: leadCommand,
  call: callCommand,
  dnc: dncCommand,
  pay: payCommand,
  history: historyCommand,
  audit: auditCommand,
  replay: replayCommand,
  // Looked up when it runs, so the copy is audited whenever this build has `leadline audit`.
  migrate: (args, io) => migrateCommand(args, io, { audit: COMMANDS.audit }),
}

export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.out(USAGE)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  const command = COMMANDS[name]
  if (!command) {
    io.err(`leadline: unknown command "${name}" (leadline help lists them)`)
    return EXIT.usage
  }
  try {
    await command(args, io)
    return EXIT.ok
  } catch (error) {
    if (error instanceof RemoteError) {
      io.err(`leadline: ${error.message}`)
      return error.exitCode
    }
    if (error instanceof UsageError || error instanceof DomainError || error instanceof ConfigError) {
      io.err(`leadline: ${error.message}`)
      return EXIT.usage
    }
    io.err(`leadline: ${(error as Error).message}`)
    return EXIT.failed
  }
}
