/**
 * What a tool is: a name, the scope it needs, a zod schema that validates its arguments (and becomes
 * its JSON Schema in tools/list), an output schema, hints for agents, and `run`. A tool lives in one
 * file, `tools/<name>.tool.ts`, exporting `tool`; the registry finds it there.
 *
 * Write tools are made with `defineWriteTool`, which gives every one of them the same
 * `idempotency_key` and `dry_run` arguments and the same mechanism behind them (spec §2.4): a dry run
 * calls `run` with `dry_run: true` (and `run` must change nothing); a real call goes through the
 * idempotency log, so a key runs `run` at most once.
 */
import { z } from 'zod'
import type { AccountState } from '../../domain/account/account.decider.ts'
import type { Scope } from '../../domain/account/account.events.ts'
import type { CommandContext, CommandHandler } from '../../eventstore/command-handler.ts'
import type { EventStore } from '../../eventstore/event-store.port.ts'
import type { EffectProcesses } from '../../processes/effect-processes.ts'
import type { Carrier } from '../../integrations/carrier/carrier.port.ts'
import type { PaymentsProvider } from '../../integrations/payments/payments.port.ts'
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_RETENTION_MS, type IdempotencyKeys } from '../../commands/idempotency.ts'
import type { InboundLeadsQueries } from '../../../projections/inbound-leads/inbound-leads.queries.ts'
import type { NextActionsQueries } from '../../../projections/stale-leads/next-actions.queries.ts'
import type { CallsQueries } from '../../../projections/calls/calls.queries.ts'
import type { ReportsQueries } from '../../../projections/reports/reports.queries.ts'
import type { Appointments } from '../../commands/appointments.ts'
import type { Calendars } from '../../commands/calendars.ts'

/**
 * What tools use: what the commands they call depend on, and the queries; the Leadline composition
 * root provides them. A new command that depends on these (an effect process reached through
 * `effects`) needs nothing added here.
 */
export interface McpServices {
  readonly store: EventStore
  readonly commands: CommandHandler
  readonly effects: EffectProcesses
  readonly carrier: Carrier
  readonly paymentsProvider: PaymentsProvider
  readonly clock: () => Date
  readonly inboundLeads: InboundLeadsQueries
  readonly idempotency: IdempotencyKeys
  readonly nextActions: NextActionsQueries
  readonly calls: CallsQueries
  readonly reports: ReportsQueries
  readonly calendars: Calendars
  readonly appointments: Appointments
}

export interface ToolContext {
  /** The key's account: the only account a tool can see or change (spec §1.6). */
  readonly account: AccountState
  readonly keyId: string
  readonly services: McpServices
  /** Actor (the API key) and correlation id (the HTTP request) for the events the call appends. */
  readonly command: CommandContext & { readonly correlationId: string }
}

export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

export interface ToolOutcome {
  readonly output: unknown
  /** True when a write tool answered with the recorded outcome of an earlier call with the same key. */
  readonly replayed: boolean
}

/** A tool as the endpoint sees it, its argument and output types erased. */
export interface Tool {
  readonly name: string
  readonly title: string
  /** One line: the tool lists (the server's instructions, docs/mcp.md's table) show it. */
  readonly summary: string
  readonly description: string
  readonly scope: Scope
  readonly annotations: ToolAnnotations
  /** Validates (and fills defaults into) the call's `arguments`. */
  readonly input: z.ZodType
  readonly output: z.ZodType
  readonly writes: boolean
  /** Reads pages of many leads or events: runs under the endpoint's bound on such reads at once (heavy-reads.ts). */
  readonly heavy: boolean
  /** Runs the tool on arguments `input` has already parsed. */
  call(args: unknown, context: ToolContext): Promise<ToolOutcome>
}

interface ToolSpec<S extends z.ZodRawShape, O extends z.ZodType, A> {
  readonly name: string
  readonly title: string
  /** What the tool does in one line, for lists of tools; the description's first sentence when absent. */
  readonly summary?: string
  /** What the tool does, when to use it, and what it returns: written for an agent deciding whether to call it. */
  readonly description: string
  readonly scope: Scope
  readonly annotations: ToolAnnotations
  readonly input: S
  readonly output: O
  /** Reads pages of many leads or events (see Tool.heavy). */
  readonly heavy?: boolean
  /** Checks across arguments (give exactly one of two), before anything runs or an idempotency key is used; throws RpcError. */
  readonly check?: (args: A) => void
  run(args: A, context: ToolContext): Promise<z.input<O>>
  /**
   * A write tool's result as an earlier version recorded it under an idempotency key, in today's
   * output shape (replays answer what was recorded, so a renamed output member is renamed here too).
   */
  readonly recorded?: (result: unknown) => z.input<O>
}

// Deeper than any tool's arguments go: a value nested further is refused by its schema anyway.
const MAX_TEXT_CHECK_DEPTH = 8

/**
 * Every string in the arguments (at any depth the schemas reach) is well-formed Unicode: a lone UTF-16
 * surrogate (`"\ud800"`, half a character) is bad input for every tool, not a failure of the log,
 * the carrier or the payment provider further on.
 */
function wellFormedText(value: unknown, context: z.core.$RefinementCtx, path: PropertyKey[] = []): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) {
      context.addIssue({ code: 'custom', path, message: 'must be well-formed Unicode text (it holds a lone UTF-16 surrogate, half of a character)' })
    }
    return
  }
  if (typeof value !== 'object' || value === null || path.length >= MAX_TEXT_CHECK_DEPTH) return
  for (const [name, item] of Object.entries(value)) wellFormedText(item, context, [...path, Array.isArray(value) ? Number(name) : name])
}

const firstSentence = (text: string): string => /^[^.]*/.exec(text)?.[0] ?? text

export function defineTool<S extends z.ZodRawShape, O extends z.ZodType>(spec: ToolSpec<S, O, z.output<z.ZodObject<S>>>): Tool {
  return {
    name: spec.name,
    title: spec.title,
    summary: spec.summary ?? firstSentence(spec.description),
    description: `${spec.description}\n\nNeeds the ${spec.scope} scope.`,
    scope: spec.scope,
    annotations: spec.annotations,
    input: z.object(spec.input).strict().superRefine((args, context) => wellFormedText(args, context)),
    output: spec.output,
    writes: false,
    heavy: spec.heavy === true,
    async call(args, context) {
      spec.check?.(args as z.output<z.ZodObject<S>>)
      return { output: await spec.run(args as z.output<z.ZodObject<S>>, context), replayed: false }
    },
  }
}

const HOURS = IDEMPOTENCY_RETENTION_MS / 3_600_000

/** The arguments every write tool takes (spec §2.4). */
export const WRITE_ARGUMENTS = {
  idempotency_key: z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, 'must be 1 to 255 printable ASCII characters')
    .describe(
      `Your unique key for this action (1 to 255 printable ASCII characters, e.g. a UUID). Repeating a call with the same key and the same arguments within ${HOURS} hours returns the original result without acting again; the same key with different arguments is refused. Ignored by a dry run.`,
    ),
  dry_run: z
    .boolean()
    .default(false)
    .describe('When true, reports what would happen and changes nothing (no idempotency key is used up).'),
} as const

export type WriteArguments = { readonly idempotency_key: string; readonly dry_run: boolean }

export function defineWriteTool<S extends z.ZodRawShape, O extends z.ZodType>(
  spec: ToolSpec<S, O, z.output<z.ZodObject<S>> & WriteArguments>,
): Tool {
  const { check: _check, recorded: _recorded, ...rest } = spec
  const base = defineTool({ ...rest, input: { ...spec.input, ...WRITE_ARGUMENTS }, run: spec.run as never })
  return {
    ...base,
    writes: true,
    async call(args, context) {
      const parsed = args as z.output<z.ZodObject<S>> & WriteArguments
      spec.check?.(parsed)
      if (parsed.dry_run) return { output: await spec.run(parsed, context), replayed: false }
      const { idempotency_key: idempotencyKey, dry_run: _dryRun, ...rest } = parsed
      const { value, replayed } = await context.services.idempotency.run(
        {
          accountId: context.account.accountId,
          keyId: context.keyId,
          idempotencyKey,
          tool: spec.name,
          args: rest,
          correlationId: context.command.correlationId,
        },
        () => spec.run(parsed, context),
      )
      return { output: replayed && spec.recorded ? spec.recorded(value) : value, replayed }
    },
  }
}
