/**
 * Shell blocks from the docs run as a reader pastes them into one terminal: in order, in bash, each
 * seeing the variables the blocks before it set (`TOKEN=$(…)` in one block, `"$TOKEN"` in the next).
 * Each block runs in its own `bash -e -o pipefail`, so a failing command fails its block and the
 * output of each block is its own; the variables it leaves are handed on to the next block.
 */
import { execFile } from 'node:child_process'
import path from 'node:path'

export interface ShellRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

// Before the block: note the shell's own variables, then restore the session's. After it: write
// every other variable back (bash's read-only ones and `_` cannot be, and need not be).
const PROLOGUE = `__ll_state=$1
__ll_own=" $(compgen -v | tr '\\n' ' ') "
if [ -f "$__ll_state" ]; then . "$__ll_state"; fi
set -e -o pipefail
`
const EPILOGUE = `
for __ll_name in $(compgen -v); do
  case "$__ll_own" in *" $__ll_name "*) continue ;; esac
  case "$__ll_name" in _|__ll_*) continue ;; esac
  declare -p "$__ll_name" | grep -v '^declare -[a-zA-Z]*r' || true
done > "$__ll_state.next"
mv "$__ll_state.next" "$__ll_state"
`

export class ShellSession {
  private readonly stateFile: string

  /** `stateDir`: a directory of the test's own, where the session keeps its variables between blocks. */
  constructor(private readonly options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly stateDir: string; readonly timeoutMs?: number }) {
    this.stateFile = path.join(options.stateDir, 'shell-variables.sh')
  }

  /** Runs one block as written; a block that fails leaves the session's variables as they were. */
  run(block: string): Promise<ShellRun> {
    return new Promise((resolve) => {
      execFile(
        'bash',
        ['--norc', '--noprofile', '-c', `${PROLOGUE}${block}\n${EPILOGUE}`, 'bash', this.stateFile],
        { cwd: this.options.cwd, env: this.options.env, timeout: this.options.timeoutMs ?? 300_000, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      )
    })
  }
}
