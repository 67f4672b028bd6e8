/**
 * Where the server is, by one rule for every command (docs/configuration.md#where-the-server-is).
 * A server on the embedded store writes the address it listens on beside the log, and removes it
 * when it stops, so a command run in another terminal (without the server's PORT) still names it.
 */
import fs from 'node:fs'

/** The address a command tries when nothing else names the server. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:3000'

/** The file beside an embedded log that holds its running server's address; null for other stores. */
export function serverAddressPath(store: string): string | null {
  if (!store.startsWith('sqlite:')) return null
  const file = store.slice('sqlite:'.length)
  if (file === ':memory:' || file === '') return null
  return file.endsWith('.db') ? `${file.slice(0, -3)}.address` : `${file}.address`
}

/** A URL for a listening socket's address: 0.0.0.0 and :: are reached at loopback, IPv6 in brackets. */
export function listeningUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host
  return `http://${shown}:${port}`
}

export function writeServerAddress(store: string, url: string): void {
  const file = serverAddressPath(store)
  if (file === null) return
  try {
    fs.writeFileSync(file, `${JSON.stringify({ url, pid: process.pid })}\n`)
  } catch {
    // A read-only data directory: commands fall back to PORT and the default.
  }
}

export function removeServerAddress(store: string): void {
  const file = serverAddressPath(store)
  if (file === null) return
  try {
    const recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown }
    // Only our own: a second server on the same store may have written it since.
    if (recorded.pid === process.pid) fs.rmSync(file, { force: true })
  } catch {
    // already gone
  }
}

/** The address a running server on this store wrote; null when none runs (or it died without removing it). */
export function recordedServerAddress(store: string): string | null {
  const file = serverAddressPath(store)
  if (file === null) return null
  try {
    const recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as { url?: unknown; pid?: unknown }
    if (typeof recorded.url !== 'string' || typeof recorded.pid !== 'number') return null
    process.kill(recorded.pid, 0)
    return recorded.url
  } catch {
    return null
  }
}

/**
 * Where a command reaches the server: LEADLINE_URL, else http://127.0.0.1:$PORT, else the address a
 * server on this LEADLINE_STORE recorded, else http://127.0.0.1:3000.
 */
export function serverUrl(env: NodeJS.ProcessEnv): { url: string; from: string } {
  const explicit = env.LEADLINE_URL?.trim()
  if (explicit) return { url: explicit.replace(/\/+$/, ''), from: 'LEADLINE_URL' }
  const port = env.PORT?.trim()
  if (port) return { url: `http://127.0.0.1:${port}`, from: 'PORT' }
  const recorded = recordedServerAddress(env.LEADLINE_STORE?.trim() || DEFAULT_STORE)
  if (recorded !== null) return { url: recorded, from: 'the running server' }
  return { url: DEFAULT_SERVER_URL, from: 'the default' }
}

/** LEADLINE_STORE's default, as configuration has it. */
export const DEFAULT_STORE = 'sqlite:./data/leadline.db'
