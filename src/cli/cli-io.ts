/** What every CLI command shares: argument parsing, output (readable or --json), and exit codes. */
import os from 'node:os'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { loadConfig, type Config } from '../config/config.ts'
import { recordedServerAddress } from '../config/server-address.ts'
import type { Leadline } from '../leadline.ts'
import type { CommandContext } from '../eventstore/command-handler.ts'
import { printable } from '../domain/shared/printable.ts'

/** Exit codes: 0 done, 1 failed (store, network), 2 bad input (nothing was changed). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

/** Bad input: printed as one line, exit 2, nothing changed. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

export interface Io {
  out(text: string): void
  err(text: string): void
  readonly env: NodeJS.ProcessEnv
  /** Everything on standard input (a password given with --password-stdin, never on the command line). */
  readonly stdin?: () => Promise<string>
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  env: process.env,
  async stdin() {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array))
    return Buffer.concat(chunks).toString('utf8')
  },
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''))
  }
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`)
  return value
}

export function onOff(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined
  if (value === 'on') return true
  if (value === 'off') return false
  throw new UsageError(`${flag} takes on or off`)
}

export function operator(): CommandContext {
  let name = 'operator'
  try {
    name = os.userInfo().username || name
  } catch {
    // no user database entry (some containers): keep the generic name
  }
  return { actor: { kind: 'operator', id: name } }
}

export function config(io: Io): Config {
  const cfg = loadConfig(io.env)
  // Printed URLs (webhook, set-password links) name where the server on this store listens, unless LEADLINE_PUBLIC_URL says.
  if (io.env.LEADLINE_PUBLIC_URL?.trim()) return cfg
  const recorded = recordedServerAddress(cfg.store)
  return recorded === null ? cfg : { ...cfg, publicUrl: recorded }
}

/** Opens the store for one command, brings the read models up to date, and always closes. */
export async function withLeadline<T>(io: Io, run: (leadline: Leadline, config: Config) => Promise<T>): Promise<T> {
  const cfg = config(io)
  // Loaded here, not at the top: the tool-client commands and --help never open the store.
  const { openLeadline } = await import('../leadline.ts')
  // The command's environment, not the process's: the carrier and payments settings are checked like the rest.
  const leadline = await openLeadline({ store: cfg.store, viewsPath: cfg.viewsPath, env: io.env })
  try {
    await leadline.runner.catchUp()
    return await run(leadline, cfg)
  } finally {
    await leadline.close()
  }
}

/**
 * A value as readable output shows it: lead data comes from webhook senders, so it goes through the
 * same printable() as `leadline history` (controls, line breaks and bidi overrides become U+FFFD) and
 * cannot move the cursor, retitle or clear the terminal, or forge a line. Null and undefined show as nothing.
 */
export function shown(value: unknown, max = Infinity): string {
  return value === null || value === undefined ? '' : printable(value, max)
}

/** A plain text table: a header row, then one row per item, columns padded to fit; every cell shown(). */
export function table(headers: string[], rows: unknown[][]): string {
  const cells = rows.map((row) => row.map((value) => shown(value)))
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()
  return [line(headers), ...cells.map(line)].join('\n')
}

/** `label  value` lines, labels padded to one width; every value shown(). */
export function listing(rows: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${shown(value)}`.trimEnd()).join('\n')
}

// JSON.stringify leaves these raw; escaped, they still parse to the same string, and a terminal shown
// --json output does not act on them (C1 controls such as CSI, bidi overrides, line separators).
const RAW_IN_JSON = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/** --json output: the exact data, indented. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
