/**
 * The heap bound of the CLI's long batch commands (`leadline replay`). V8 sizes its heap limit by the
 * machine, so a replay's garbage (a million decoded events) lets the heap grow far past what the
 * replay keeps alive before it is collected, and the peak RSS varies widely from run to run
 * (docs/performance.md). A bound on the old generation has it collected sooner. The flag must be
 * given when Node starts, so the command starts itself again with it.
 */
import { spawnSync } from 'node:child_process'
import { constants } from 'node:os'

/** What a batch command runs with (bench:replay measures with the same). */
export const BATCH_HEAP_FLAGS: readonly string[] = ['--max-old-space-size=96']

const BATCH_COMMANDS: ReadonlySet<string> = new Set(['replay'])

/**
 * The Node arguments to start `script args` again with, for a batch command whose Node was not given a
 * heap bound; null when the command runs as it is.
 */
export function relaunchArguments(execArgv: readonly string[], script: string, args: readonly string[]): string[] | null {
  if (!BATCH_COMMANDS.has(args[0] ?? '')) return null
  if (execArgv.some((flag) => flag.startsWith('--max-old-space-size'))) return null
  return [...BATCH_HEAP_FLAGS, ...execArgv, script, ...args]
}

/** Runs a batch command again under its heap bound and answers its exit code; null when it runs here. */
export function runBounded(script: string, args: readonly string[]): number | null {
  const argv = relaunchArguments(process.execArgv, script, args)
  if (argv === null) return null
  const child = spawnSync(process.execPath, argv, { stdio: 'inherit' })
  if (child.error) throw child.error
  // Ended by a signal (Ctrl-C reaches both processes): the shell's convention, 128 + its number.
  if (child.status === null) return 128 + (child.signal ? constants.signals[child.signal] : 0)
  return child.status
}
