/**
 * How a failed tool-client command ends: one line and its own exit code. Kept apart from remote.ts so
 * the CLI can recognise it without loading the MCP SDK for commands that never use it.
 */

/** Exit codes of the tool client, beyond 0 done, 1 failed and 2 bad input. */
export const REMOTE_EXIT = { auth: 3, scope: 4, invalidArguments: 5, toolFailed: 6, rateLimited: 7 } as const

export const EXIT_BY_RPC_CODE: Readonly<Record<number, number>> = {
  [-32001]: REMOTE_EXIT.auth,
  [-32003]: REMOTE_EXIT.scope,
  [-32602]: REMOTE_EXIT.invalidArguments,
  [-32603]: REMOTE_EXIT.toolFailed,
  // The rate limit's code from 0.2 on, and the one servers before it (and 2025-11-25 requests until 0.3) answer.
  [-32010]: REMOTE_EXIT.rateLimited,
  [-32029]: REMOTE_EXIT.rateLimited,
}

/** A failed remote call: printed as one line, the process exits with `exitCode`. */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** The JSON-RPC error as the server sent it, for --json. */
    readonly rpcError: { code: number; message: string; data: unknown } | null = null,
  ) {
    super(message)
    this.name = 'RemoteError'
  }
}

