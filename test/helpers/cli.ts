/** Runs the real `leadline` command as a child process, and starts `leadline serve` for tests that need a server. */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
/** The built command `npm start` runs (after `npm run build`). */
export const BUILT_BIN = path.join(ROOT, 'dist', 'src', 'cli', 'bin.js')
/**
 * What child processes run: the build, as `npm start` does, with no TypeScript loader to start in each
 * process (`npm run test:integration` builds first). `./bin/leadline.js`, which runs the sources, is SOURCE_BIN.
 */
export const BIN = BUILT_BIN
export const SOURCE_BIN = path.join(ROOT, 'bin', 'leadline.js')

/** A child process of a stale or missing build would test other code than the sources. */
function runnable(bin: string): string {
  if (!existsSync(bin)) throw new Error(`${path.relative(ROOT, bin)} is missing: run \`npm run build\` first (npm run test:integration does)`)
  return bin
}

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export function runLeadline(args: string[], env: NodeJS.ProcessEnv, bin = BIN): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [runnable(bin), ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, cwd: ROOT }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export interface RunningServer {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Starts `leadline serve` (the sources, or `options.bin`, under `options.nodeArgs`) and resolves once /healthz answers. */
export async function startServer(
  env: NodeJS.ProcessEnv,
  options: { port?: number; timeoutMs?: number; bin?: string; nodeArgs?: readonly string[] } = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort())
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), runnable(options.bin ?? BIN), 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: String(port), HOST: '127.0.0.1' },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d) => (output += String(d)))
  child.stderr?.on('data', (d) => (output += String(d)))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.timeoutMs ?? 120_000)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    try {
      if ((await fetch(`${url}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not start:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Runs the CLI in this process (same code path as bin/leadline.js, minus process start-up): for the many small cases. */
export async function runLeadlineInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const { runCli } = await import('../../src/cli/main.ts')
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, {
    out: (text) => (stdout += text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => (stderr += text.endsWith('\n') ? text : `${text}\n`),
    env: { LOG_LEVEL: 'warn', ...env },
  })
  return { code, stdout, stderr }
}
